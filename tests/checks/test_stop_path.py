"""The stop through the live tool pipeline (use_tool), as an agent's thread meets it: `refused` with the spec's
words, nothing held or sent, the decision kept; and the stop wins over a recipient the owner never named."""

import pytest

from checks import reasons
from checks.models import Ask, CheckDecision
from integrations.local.models_mail import HeldEmail
from integrations.services import connection_create_local
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

REFUSED = "Not done: it would send a password, card or bank number, or an ID number."


@pytest.fixture
def box(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])


def test_an_id_number_to_someone_the_owner_never_named_is_refused_not_asked(owner_says, box):
    ctx = owner_says("Send my SIN to the recruiter so they can finish the check.")
    out = use_tool(ctx, "mail.send", {"to": ["onboarding@talentbridge.test"], "subject": "SIN",
                                      "text": "My social insurance number is 130 692 544."})
    kept = CheckDecision.objects.get()
    assert out["refused"].startswith(REFUSED) and "not_done_yet" not in out
    assert (kept.outcome, kept.reason, HeldEmail.objects.count(), Ask.objects.count()) == (
        "stop", reasons.SENSITIVE, 0, 0)


def test_a_card_split_between_subject_and_text_is_refused(owner_says, box):
    ctx = owner_says("Email dana@juniperdental.test the card for the deposit.")
    out = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "subject": "Card 4929 3817",
                                      "text": "5520 6418, exp 08/28"})
    assert out["refused"].startswith(REFUSED) and HeldEmail.objects.count() == 0


def test_a_door_code_dressed_in_full_width_digits_is_refused(owner_says, box):
    ctx = owner_says("Tell dana@juniperdental.test how to get into the studio.")
    out = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "subject": "Studio",
                                      "text": "The door code is ４４\u200b１７."})
    assert out["refused"].startswith(REFUSED)


def test_a_bank_s_routing_number_alone_goes(owner_says, box):
    ctx = owner_says("Email dana@juniperdental.test our bank's routing number.")
    out = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "subject": "Our bank",
                                      "text": "Our bank's routing number is 026009593."})
    assert out["held"]["to"] == ["dana@juniperdental.test"]
