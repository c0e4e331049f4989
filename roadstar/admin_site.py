"""The staff admin under Roadstar's name. INSTALLED_APPS names `AdminConfig` below in place of Django's own, so
`admin.site` (which every app's admin.py registers with) is this site.

Page titles follow the owner's pages: "<page> · Roadstar admin".
"""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig
from django.shortcuts import redirect


class RoadstarAdminSite(admin.AdminSite):
    site_header = "Roadstar administration"
    site_title = "Roadstar admin"
    index_title = "Workspaces and what their agents keep"

    def logout(self, request, extra_context=None):
        # Signing out is a POST (Django's); a typed /admin/logout/ gets the page with the button, as /logout/ does.
        if request.method == "GET":
            return redirect("logout")
        return super().logout(request, extra_context)


class AdminConfig(DjangoAdminConfig):
    default_site = "roadstar.admin_site.RoadstarAdminSite"
