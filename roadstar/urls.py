"""The project's URLs: the admin, signing in and out, then each top app's own routes."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("home.urls")),  # Home, Undo, the cards and asks, the chats
    path("connections/mcp/", include("mcp_server.urls")),
    path("connections/", include("integrations.urls")),
    path("api/", include("api.urls")),
    path("", include("pages.urls")),  # Contacts, Companies, Docs, Agents, Routines; after the routes above
]
