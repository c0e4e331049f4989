"""/connections/: the owner's apps, each app's connect page, and the OAuth callbacks."""

from django.urls import path

from integrations import views, views_mcp_apps

app_name = "integrations"

urlpatterns = [
    path("", views.index, name="index"),
    path("google/callback", views.google_callback, name="google_callback"),
    path("quickbooks/callback", views.quickbooks_callback, name="quickbooks_callback"),
    path("microsoft/callback", views.microsoft_callback, name="microsoft_callback"),
    path("search/<str:account_key>", views.search_setting, name="search_setting"),
    # Before <slug:app>/: the owner's other apps, by their MCP address ("apps" is their catalog key).
    path("apps/", views_mcp_apps.page, name="apps"),
    path("apps/start", views_mcp_apps.start, name="apps_start"),
    path("apps/callback", views_mcp_apps.callback, name="apps_callback"),
    path("<slug:app>/", views.connect, name="connect"),
    path("<slug:app>/start", views.start, name="start"),
]
