"""The project's URLs: the admin, signing in and out, then each top app's own routes."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from integrations import views as integration_views
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
    path("", include("home.urls")),  # Home, Undo, the cards and asks, the chats
    path("emails/<uuid:held_id>/", integration_views.held_email, name="held_email"),
    path("connections/mcp/", include("mcp_server.urls")),
    path("connections/", include("integrations.urls")),
    path("api/", include("api.urls")),
    path("", include("pages.urls")),  # Contacts, Companies, Docs, Agents, Routines; after the routes above
]
