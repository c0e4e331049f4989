"""/connections/mcp/: the owner's connection tokens for outside AI apps and Mac programs.

Mounted before /connections/ in roadstar/urls.py: the apps' pages there take any /connections/<app>/.
"""

from django.urls import path

from mcp_server import views

app_name = "mcp_server"

urlpatterns = [
    path("", views.index, name="index"),
    path("make", views.make, name="make"),
    path("authorize/<str:key>", views.consent, name="consent"),
    path("<uuid:token_id>/revoke", views.revoke, name="revoke"),
    path("agents/<uuid:agent_id>/<str:filename>", views.agent_file, name="agent_file"),
]
