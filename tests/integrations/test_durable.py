"""Writes made on the way to a tool's failure stand after its transaction rolls back."""

import pytest
from django.db import transaction

from core.errors import ToolError
from core.models import Card
from integrations.durable import keep, kept
from integrations.selectors import require_connection
from integrations.services import Asker


def _card(org, subject="s"):
    def write():
        return Card.objects.get_or_create(organization=org, subject=subject, resolved_at=None,
                                          defaults={"kind": "connect", "title": "t"})[0]
    return write


class Boom(Exception):
    pass


def test_a_kept_write_stands_after_its_transaction_rolls_back(org):
    with pytest.raises(Boom):
        with kept(), transaction.atomic():
            keep(_card(org))
            raise Boom
    assert Card.objects.filter(organization=org).count() == 1


def test_a_kept_write_in_a_transaction_that_commits_is_written_once(org):
    with kept(), transaction.atomic():
        keep(_card(org))
    assert Card.objects.filter(organization=org).count() == 1


def test_keep_outside_a_scope_just_writes(org):
    keep(_card(org))
    assert Card.objects.filter(organization=org).count() == 1


def test_a_write_kept_by_an_inner_scope_stands_when_the_outer_one_fails(org):
    with pytest.raises(Boom):
        with kept(), transaction.atomic():
            with kept(), transaction.atomic():
                keep(_card(org))
            raise Boom
    assert Card.objects.filter(organization=org).count() == 1


def test_a_tools_not_connected_card_is_on_home_after_use_tool(org, ctx, use, probe_tool):
    probe_tool(lambda ctx, inp: require_connection(org=ctx.org, group="mail", asked_by=Asker.of(ctx)))
    result = use("integrations.probe")
    card = Card.objects.get(organization=org, resolved_at__isnull=True)
    assert (result["error"], result["card"], card.data["asked_by"]["conversation_id"]) == (
        "not_connected", card.title, "thread-1"
    )


def test_a_tool_error_without_kept_writes_still_comes_back(org, use, probe_tool):
    def fail(ctx, inp):
        raise ToolError("vendor", "no")

    probe_tool(fail)
    assert use("integrations.probe") == {"error": "vendor", "message": "no"}
