from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from integrations import views as integration_views
from roadstar import views
from roadstar.signout import SignOutView

urlpatterns = [
    path("admin/", admin.site.urls),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", SignOutView.as_view(), name="logout"),
    # Browsers and the admin's pages ask for /favicon.ico; the icon is the SVG the pages link.
    path("favicon.ico", RedirectView.as_view(url=static("roadstar/favicon.svg"))),
    path("", views.home, name="home"),
    path("changes/<uuid:change_id>/undo", views.change_undo, name="change_undo"),
    path("cards/<uuid:card_id>/dismiss", views.card_dismiss, name="card_dismiss"),
    path("cards/<uuid:card_id>/try-again", views.card_try_again, name="card_try_again"),
    path("cards/<uuid:card_id>/budget", views.card_raise_budget, name="card_raise_budget"),
    path("cards/<uuid:card_id>/answer", views.card_answer, name="card_answer"),
    path("asks/<uuid:ask_id>/answer", views.ask_answer, name="ask_answer"),
    path("home/live/", views.home_live, name="home_live"),
    path("chat/", views.chats, name="chats"),
    path("chat/<uuid:agent_id>/", views.chat, name="chat"),
    path("chat/<uuid:agent_id>/live/", views.chat_live, name="chat_live"),
    path("emails/<uuid:held_id>/", integration_views.held_email, name="held_email"),
    path("connections/mcp/", include("mcp_server.urls")),
    path("connections/", include("integrations.urls")),
    path("api/", include("api.urls")),
    path("", include("pages.urls")),  # Contacts, Companies, Docs, Agents, Routines; after the routes above
]
