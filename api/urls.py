"""/api/: the REST API's routes, its OpenAPI schema (/api/schema/) and a page to try it (/api/schema/docs/).

/api/docs/ is the owner's docs, so the schema's page sits under /api/schema/. Ids are UUIDs: a path with anything
else matches no route and is `not_found`, as a path that names no route at all is.
"""

from django.conf import settings
from django.urls import path, re_path
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularSwaggerSplitView

from api import views
from core.errors import ERROR_KINDS

app_name = "api"

SCHEMA_SETTINGS = {
    "TITLE": "Roadstar API",
    "DESCRIPTION": (
        "The owner's workspace: agents, their chats, contacts, companies, projects, docs and Home. Sign in with "
        "'Authorization: Token <token>' (python manage.py api_token USERNAME) or a signed-in session. Every "
        "failure answers {error, message}, error being one of the 12 kinds of the errors reference."
    ),
    "VERSION": "1",
    # Request and response components apart: a request's camelCase inputs are not the answer's keys.
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH takes what its input says it takes: setting a budget needs the budget.
    "COMPONENT_SPLIT_PATCH": False,
    # Several inputs and answers are named `kind`, each with its own choices: each set gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "OpenItemKindEnum": ["you", "them", "follow_up"],
        "ConversationKindEnum": ["chat", "thread", "outside"],
        "TimelineKindEnum": ["mail", "meeting", "call", "invoice", "note"],
        "ErrorKindEnum": list(ERROR_KINDS),
    },
}

# The page to try the API is drf-spectacular's Swagger UI, which loads from its CDN and styles itself inline. Its
# script comes from this server (the split view: no inline script); this page alone may load from the CDN.
_SWAGGER_CDN = "https://cdn.jsdelivr.net"
SWAGGER_CSP = {
    **settings.SECURE_CSP,
    "script-src": [CSP.SELF, _SWAGGER_CDN],
    "style-src": [CSP.SELF, _SWAGGER_CDN, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:", _SWAGGER_CDN],
}

urlpatterns = [
    path("agents/", views.AgentList.as_view(), name="agents"),
    path("agents/<uuid:agent_id>/", views.AgentDetail.as_view(), name="agent"),
    path("agents/<uuid:agent_id>/chat/", views.AgentChat.as_view(), name="agent_chat"),
    path("conversations/", views.ConversationList.as_view(), name="conversations"),
    path("conversations/<uuid:conversation_id>/", views.ConversationDetail.as_view(), name="conversation"),
    path(
        "conversations/<uuid:conversation_id>/messages/", views.ConversationMessages.as_view(),
        name="conversation_messages",
    ),
    path(
        "conversations/<uuid:conversation_id>/try-again/", views.ConversationTryAgain.as_view(),
        name="conversation_try_again",
    ),
    path("contacts/", views.ContactList.as_view(), name="contacts"),
    path("contacts/<uuid:contact_id>/", views.ContactDetail.as_view(), name="contact"),
    path("contacts/<uuid:contact_id>/notes/", views.ContactNotes.as_view(), name="contact_notes"),
    path("companies/", views.CompanyList.as_view(), name="companies"),
    path("companies/<uuid:company_id>/", views.CompanyDetail.as_view(), name="company"),
    path("companies/<uuid:company_id>/timeline/", views.CompanyTimeline.as_view(), name="company_timeline"),
    path("projects/", views.ProjectList.as_view(), name="projects"),
    path("projects/<uuid:project_id>/", views.ProjectDetail.as_view(), name="project"),
    path("docs/", views.DocList.as_view(), name="docs"),
    path("docs/<uuid:doc_id>/", views.DocDetail.as_view(), name="doc"),
    path("docs/<uuid:doc_id>/notes/", views.DocNotes.as_view(), name="doc_notes"),
    path("home/", views.HomeView.as_view(), name="home"),
    path("home/work/", views.HomeWork.as_view(), name="home_work"),
    path("home/changes/", views.HomeChanges.as_view(), name="home_changes"),
    path("home/cards/", views.HomeCards.as_view(), name="home_cards"),
    path("changes/<uuid:change_id>/undo/", views.ChangeUndo.as_view(), name="change_undo"),
    path("cards/<uuid:card_id>/dismiss/", views.CardDismiss.as_view(), name="card_dismiss"),
    path(
        "schema/",
        views.SchemaView.as_view(custom_settings=SCHEMA_SETTINGS),
        name="schema",
    ),
    path(
        "schema/docs/",
        csp_override(SWAGGER_CSP)(
            SpectacularSwaggerSplitView.as_view(url_name="api:schema", permission_classes=[], authentication_classes=[])
        ),
        name="schema_docs",
    ),
    # Any path at all, a newline in it too (`.` stops at one).
    re_path(r"^[\s\S]*$", views.NoRoute.as_view(), name="no_route"),
]
