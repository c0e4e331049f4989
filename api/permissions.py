"""Who may use the API: a signed-in owner, and only with their own workspace.

Every view scopes each query by `request.user.organization`; a sign-in without a workspace (staff, who use the
Django admin) is refused here, so no view has to ask.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from core.http import user_workspace


class IsWorkspaceOwner(BasePermission):
    message = "This sign-in has no workspace: the API is for a workspace's owner. Staff use the Django admin."

    def has_permission(self, request, view) -> bool:
        return user_workspace(request.user) is not None
