"""Reads of routines for the pages: another workspace's routine is None, never a leak."""

from __future__ import annotations

from core.models import Organization
from routines.models import Routine


def routines_of(*, org: Organization) -> list[Routine]:
    """Every routine with its agent and skill; each holds `org` itself, so when_text costs no query."""
    routines = list(
        Routine.objects.filter(organization=org).select_related("agent", "skill").order_by("agent__name", "id")
    )
    for routine in routines:
        routine.organization = org
    return routines


def routine_get(*, org: Organization, routine_id) -> Routine | None:
    """The workspace's routine with its agent, or None."""
    routine = Routine.objects.filter(organization=org, id=routine_id).select_related("agent").first()
    if routine is not None:
        routine.organization = org
    return routine
