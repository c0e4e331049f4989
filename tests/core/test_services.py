"""Cards on Waiting for you: one open card per subject, even when two workers open it at once."""

import pytest
from django.db import IntegrityError, transaction

from core.models import Card
from core.services import card_open, card_resolve


def test_opening_a_card_twice_gives_the_same_card(org):
    first = card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget")
    assert card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget") == first


def test_the_database_refuses_a_second_open_card_for_a_subject(org):
    card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget")
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(organization=org, kind="budget", subject="budget:1", title="Again")


def test_a_worker_that_loses_the_race_gets_the_winners_card(org, monkeypatch):
    winner = Card.objects.create(organization=org, kind="budget", subject="budget:1", title="Raise the budget")
    # As if this worker looked before the other one's card was committed.
    monkeypatch.setattr("core.services.Card.objects.filter", lambda **kw: Card.objects.none())
    assert card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget").id == winner.id


def test_a_resolved_card_leaves_room_for_a_new_one(org):
    first = card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget")
    card_resolve(org=org, card_id=first.id)
    assert card_open(org=org, kind="budget", subject="budget:1", title="Raise the budget") != first
