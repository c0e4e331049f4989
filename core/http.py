"""What the apps' views share: the signed-in owner's workspace."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest

from core.models import Organization


def workspace_of(request: HttpRequest) -> Organization | None:
    """The signed-in owner's workspace; None for a sign-in without one (a staff user made in the admin)."""
    return user_workspace(request.user)


def user_workspace(user: object) -> Organization | None:
    """The user's workspace; None for an anonymous user or a sign-in without one (the API's token command too)."""
    if not getattr(user, "is_authenticated", False):  # an anonymous user has no `organization` to read
        return None
    try:
        organization: Organization = user.organization  # type: ignore[attr-defined]
        return organization
    except ObjectDoesNotExist:  # the reverse one-to-one raises rather than answering None
        return None


def workspace_or_404(request: HttpRequest) -> Organization:
    """The signed-in owner's workspace; a sign-in without one gets a 404, never another workspace's page."""
    org = workspace_of(request)
    if org is None:
        raise Http404("This sign-in has no workspace.")
    return org
