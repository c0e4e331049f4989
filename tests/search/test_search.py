"""search.search and search.read through use_tool, over the local mailbox's copy and the workspace's own records:
every filter, exact totals and counts over every match, one result per thread, and nothing of another workspace."""

import datetime

import pytest
from freezegun import freeze_time

from core.errors import ToolError
from integrations.local.models_mail import LocalMailMessage
from integrations.services import connection_create_local, connection_search_set
from search.models import SearchItem
from tests.factories import (
    CompanyFactory,
    ContactFactory,
    DocFactory,
    OrganizationFactory,
    ProjectFactory,
)
from tests.search.conftest import DAY, copy_now, received, sent
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db


def day(n: int) -> datetime.datetime:
    return DAY - datetime.timedelta(days=n)


@pytest.fixture
def mailbox(box, org):
    """Sam's mail: three clients written to, a newsletter, a supplier thread with a purchase order."""
    ruiz = CompanyFactory(organization=org, name="Ruiz Print Co.", domains=["ruizprint.test"])
    for n in range(3):
        sent(box, to=["Dana Whitfield <dana@juniperdental.test>"], subject=f"Logo round {n}", text="Drafts attached",
             at=day(10 + n), thread=f"dana{n}")
    sent(box, to=["Rosa Ortiz <rosa@ortizbakery.test>"], subject="Cake boxes", text="The boxes are ready",
         at=day(8), thread="rosa")
    received(box, sender="Rosa Ortiz <rosa@ortizbakery.test>", subject="Re: Cake boxes", text="Thank you, lovely!",
             at=day(7), thread="rosa")
    received(box, sender="Marco Ruiz <marco@ruizprint.test>", subject="PO 4471 proofs",
             text="Proofs for PO 4471 attached. Total $1,240.00 due on delivery.", at=day(5), thread="ruiz")
    received(box, sender="Marco Ruiz <marco@ruizprint.test>", subject="Re: PO 4471 proofs",
             text="Also PO 4472 for the flyers.", at=day(4), thread="ruiz")
    received(box, sender="Printing Weekly <newsletter@printweekly.test>", subject="This week in print",
             text="News about print. Unsubscribe here.", at=day(3), thread="news")
    copy_now(box)
    return ruiz


def run(ctx, inp, name="search.search"):
    out = use_tool(ctx, name, inp)
    assert "error" not in out, out
    return out


def test_counts_people_over_sent_mail_from_people(ctx, mailbox):
    out = run(ctx, {"dir": "sent", "bulk": False, "after": "2026-09-01", "limit": 20})
    assert out["total"] == 4
    assert list(out["counts"]["people"].items()) == [
        ("Dana Whitfield <dana@juniperdental.test>", 3), ("Rosa Ortiz <rosa@ortizbakery.test>", 1),
    ]
    assert out["counts"]["dir"] == {"sent": 4}
    assert out["understood"]["after"].startswith("from 2026-09-01")


def test_identifiers_match_exactly_and_one_result_per_thread(ctx, mailbox):
    out = run(ctx, {"query": "PO 4471"})
    # Both messages of the Ruiz thread say PO 4471: one result, with one more in the thread; PO 4472 alone is not it.
    assert out["total"] == 2
    assert len(out["results"]) == 1
    first = out["results"][0]
    assert first["moreInThread"] == 1 and first["type"] == "email"
    assert first["title"] in ("PO 4471 proofs", "Re: PO 4471 proofs")
    assert '"PO 4471"' in out["understood"]["query"]
    assert run(ctx, {"query": "PO 4473"})["total"] == 0


def test_addresses_match_exactly_and_the_query_syntax_is_never_the_indexs(ctx, mailbox):
    assert run(ctx, {"query": "marco@ruizprint.test"})["total"] == 2
    for nasty in ['"', 'NOT print', 'print OR', 'e-mail "unbalanced', "proofs*", "NEAR(a b)", "-print", "(", "^x"]:
        out = use_tool(ctx, "search.search", {"query": nasty})
        assert "results" in out or out["error"] == "bad_input", (nasty, out)


def test_from_a_company_and_a_name(ctx, mailbox):
    out = run(ctx, {"from": ["Ruiz Print Co."]})
    assert out["total"] == 2 and "ruizprint.test" in out["understood"]["from"]["Ruiz Print Co."]
    assert run(ctx, {"from": ["Marco Ruiz"]})["total"] == 2
    assert run(ctx, {"to": ["dana@juniperdental.test"]})["total"] == 3
    assert run(ctx, {"with": ["rosa@ortizbakery.test"]})["total"] == 2


def test_bulk_and_waiting(ctx, mailbox):
    assert [r["title"] for r in run(ctx, {"bulk": True})["results"]] == ["This week in print"]
    waiting_on_me = run(ctx, {"waiting": "me"})
    # Rosa and Marco wrote last (the newsletter is no person): two threads wait on Sam.
    assert {r["thread"].rsplit(":", 1)[1] for r in waiting_on_me["results"]} == {"rosa", "ruiz"}
    assert {r["thread"].rsplit(":", 1)[1] for r in run(ctx, {"waiting": "them"})["results"]} == {"dana0", "dana1",
                                                                                                   "dana2"}


def test_last_week_in_the_owners_zone(ctx, mailbox, org):
    org.time_zone = "Europe/London"
    org.save()
    with freeze_time(DAY):  # Tuesday 10 November: last week starts Monday 2 November
        out = run(ctx, {"after": "last week"})
    assert out["understood"]["after"] == "from the week from Monday 2026-11-02 (Europe/London)"
    assert out["counts"]["type"]["email"] == 5  # 2 to 7 November; the Dana threads are older
    bad = use_tool(ctx, "search.search", {"after": "the day after the party"})
    assert bad["error"] == "bad_input" and bad["message"].startswith("after:")


def test_thread_lists_every_message_and_read_gives_the_whole_thread(ctx, mailbox, box):
    thread = f"mail:{box.account_key}:t:ruiz"
    out = run(ctx, {"thread": thread})
    assert [r["title"] for r in out["results"]] == ["Re: PO 4471 proofs", "PO 4471 proofs"]
    whole = run(ctx, {"id": thread}, "search.read")
    assert "Proofs for PO 4471" in whole["text"] and "PO 4472" in whole["text"]
    assert whole["source"] == "sam@fernhill.test"


def test_read_pages_of_30000(ctx, box):
    long = "word " * 14000  # 70,000 characters
    received(box, sender="dana@juniperdental.test", subject="Long", text=long, at=day(1), thread="long")
    copy_now(box)
    item = run(ctx, {"query": "Long"})["results"][0]
    first = run(ctx, {"id": item["id"]}, "search.read")
    assert len(first["text"]) == 30000 and first["nextOffset"] == 30000
    last = run(ctx, {"id": item["id"], "offset": 60000}, "search.read")
    assert "nextOffset" not in last and last["text"].endswith("word ")


def test_paging_with_next(ctx, mailbox):
    first = run(ctx, {"dir": "sent", "limit": 2})
    assert len(first["results"]) == 2 and first["next"]
    second = run(ctx, {"dir": "sent", "limit": 2, "cursor": first["next"]})
    assert second["next"] is None
    ids = [r["id"] for r in first["results"] + second["results"]]
    assert len(ids) == len(set(ids)) == 4
    wrong = use_tool(ctx, "search.search", {"dir": "received", "limit": 2, "cursor": first["next"]})
    assert wrong["error"] == "bad_input" and wrong["message"].startswith("cursor:")


def test_the_workspaces_own_records_are_always_in_search(ctx, org):
    project = ProjectFactory(organization=org, name="Juniper rebrand")
    DocFactory(organization=org, project=project, title="Signage brief", text="Two clinics, backlit signs.")
    ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    out = run(ctx, {"query": "backlit"})
    assert [r["title"] for r in out["results"]] == ["Signage brief"]
    assert run(ctx, {"query": "Juniper rebrand", "type": ["project"]})["total"] == 1
    assert run(ctx, {"query": "dana@juniperdental.test", "type": ["contact"]})["total"] == 1
    assert run(ctx, {"in": ["Juniper rebrand"]})["total"] == 1


def test_a_deleted_record_leaves_search(ctx, org):
    contact = ContactFactory(organization=org, name="Gone Person")
    assert run(ctx, {"query": "Gone"})["total"] == 1
    contact.delete()
    assert run(ctx, {"query": "Gone"})["total"] == 0


def test_another_workspaces_items_are_never_found(ctx, org, mailbox):
    other = OrganizationFactory(name="Other", owner_email="lee@other.test")
    theirs = connection_create_local(org=other, account="lee@other.test", groups=["mail"])
    connection_search_set(org=other, account_key=theirs.account_key, on=True)
    secret = received(theirs, sender="marco@ruizprint.test", subject="PO 4471 secret", text="PO 4471 for Other",
                      at=day(1), thread="secret")
    copy_now(theirs)
    DocFactory(organization=other, title="PO 4471 their doc", text="PO 4471")
    out = run(ctx, {"query": "PO 4471"})
    assert out["total"] == 2 and "secret" not in str(out)
    key = f"mail:{theirs.account_key}:m:{secret.key}"
    assert SearchItem.objects.filter(key=key).exists()
    assert use_tool(ctx, "search.read", {"id": key})["error"] == "not_found"
    assert use_tool(ctx, "search.read", {"id": f"mail:{theirs.account_key}:t:secret"})["error"] == "not_found"
    # Sam can't turn search on for another workspace's account either.
    with pytest.raises(ToolError):
        connection_search_set(org=org, account_key=theirs.account_key, on=True)


def test_search_off_hides_the_copy_at_once_and_the_sweep_drops_it(ctx, org, mailbox, box):
    from search import sync

    assert run(ctx, {"query": "proofs"})["total"] == 2
    connection_search_set(org=org, account_key=box.account_key, on=False)
    assert run(ctx, {"query": "proofs"})["total"] == 0
    assert "not in search" in run(ctx, {"query": "proofs"})["sources"]["sam@fernhill.test"]
    sync.sweep()
    assert not SearchItem.objects.filter(connection=box).exists()


def test_a_message_deleted_at_the_source_leaves_the_copy(ctx, mailbox, box):
    assert run(ctx, {"query": "flyers"})["total"] == 1
    LocalMailMessage.objects.filter(connection=box, subject="Re: PO 4471 proofs").delete()
    assert run(ctx, {"query": "flyers"})["total"] == 0
    assert run(ctx, {"query": "PO 4471"})["results"][0].get("moreInThread") is None


def test_new_mail_is_found_at_once(ctx, mailbox, box):
    received(box, sender="dana@juniperdental.test", subject="Invoice INV-0042", text="Please find INV-0042",
             at=day(0), thread="inv")
    out = run(ctx, {"query": "INV-0042"})
    assert out["total"] == 1


def test_counts_are_over_every_match_not_the_page(ctx, mailbox):
    out = run(ctx, {"limit": 1, "type": ["email"]})
    assert len(out["results"]) == 1
    assert out["total"] == 8 and out["counts"]["type"] == {"email": 8}
    assert out["counts"]["year"] == {"2026": 8}
    assert out["counts"]["source"] == {"sam@fernhill.test": 8}
    assert out["counts"]["dir"] == {"received": 4, "sent": 4}


def test_attachments_text_is_copied_found_and_read(ctx, box):
    message = received(box, sender="Marco Ruiz <marco@ruizprint.test>", subject="Proofs", text="See attached",
                       at=day(1), thread="att", attachments=[("proof-notes.txt", "text/plain",
                                                              b"Matte finish, 350gsm, Pantone 7621 C")])
    copy_now(box)
    out = run(ctx, {"query": "Pantone 7621"})
    assert out["total"] == 1 and out["results"][0]["type"] == "doc"
    assert out["results"][0]["thread"] == f"mail:{box.account_key}:t:att"
    attachment_id = out["results"][0]["id"]
    assert run(ctx, {"id": attachment_id}, "search.read")["text"] == "Matte finish, 350gsm, Pantone 7621 C"
    email = run(ctx, {"query": "See attached"})["results"][0]
    assert email["attachments"] == f"proof-notes.txt ({attachment_id})"
    assert run(ctx, {"id": email["id"]}, "search.read")["attachments"] == [
        {"id": attachment_id, "name": "proof-notes.txt", "quality": "text"}]
    # The thread is one result: the email and its attachment.
    assert run(ctx, {"from": ["marco@ruizprint.test"]})["results"][0]["moreInThread"] == 1
    LocalMailMessage.objects.filter(pk=message.pk).delete()
    assert run(ctx, {"query": "Pantone"})["total"] == 0


def test_a_copy_steps_aside_after_a_batch_when_a_task_waits_behind_it(ctx, org, box):
    """On the embedded default's one worker, an owner's message queued during a long first sync is served after the
    batch in hand, not after the sweep's 40 seconds."""
    from integrations.models import SearchCopy
    from search import sync

    for n in range(5):
        received(box, sender="dana@juniperdental.test", subject=f"Note {n}", text="Cornflower blue", at=day(n),
                 thread=f"n{n}")
    asked = []
    assert sync.copy_run(box, batch=2, yield_when=lambda: asked.append(1) or True) == "copying"
    copy = SearchCopy.objects.get(connection=box)
    assert (copy.copied, copy.claim) == (2, "")  # one batch done, kept, and the claim let go for the next run
    assert asked == [1]
    assert sync.copy_run(box, batch=2, yield_when=lambda: False) == "current"
    assert SearchCopy.objects.get(connection=box).copied == 5


def test_a_first_sync_goes_on_over_several_sweeps_and_says_so_meanwhile(ctx, org, box):
    from integrations.models import SearchCopy
    from search import sync

    for n in range(5):
        received(box, sender="dana@juniperdental.test", subject=f"Note {n}", text="Cornflower blue", at=day(n),
                 thread=f"n{n}")
    assert sync.copy_run(box, batch=2, max_seconds=0) == "copying"  # its time was up before the first batch
    assert sync.copy_run(box, batch=2, max_batches=1) == "copying"
    copy = SearchCopy.objects.get(connection=box)
    assert (copy.state, copy.copied, copy.total, copy.claim) == ("copying", 2, 5, "")
    out = run(ctx, {"query": "cornflower"})
    assert out["total"] == 2 and "still being copied" in out["hint"]
    assert "being copied (2 of about 5)" in out["sources"]["sam@fernhill.test"]
    assert sync.copy_run(box, batch=2) == "current"
    out = run(ctx, {"query": "cornflower"})
    assert out["total"] == 5 and "hint" not in out
