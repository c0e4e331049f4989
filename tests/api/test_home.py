"""/api/home/: work with latest replies, Your-work lines (paged, with Undo), the open cards, Dismiss."""

import datetime

from django.utils import timezone

from agents.models import Work
from core.models import Card, Change
from records.models import Contact


def line(org, sentence: str, at, listing="home") -> Change:
    change = Change.objects.create(organization=org, actor_kind="agent", actor_id="a1", actor_name="Client desk",
                                   tool="contacts.create", kind="makes", sentence=sentence, listing=listing)
    Change.objects.filter(id=change.id).update(at=at)
    return change


def test_home_gives_cards_work_and_changes(api, mine):
    body = api.get("/api/home/").json()
    assert ({c["id"] for c in body["cards"]}, [w["id"] for w in body["work"]["items"]],
            [c["id"] for c in body["changes"]["items"]]) == (
        {str(mine.card.id), str(mine.try_again.id)}, [str(mine.work.id)], [str(mine.change.id)])


def test_a_piece_of_work_comes_with_its_agent_and_latest_reply(api, mine):
    work = api.get("/api/home/work/").json()["items"][0]
    assert (work["agent"]["name"], work["task"], work["latestReply"], work["conversationKind"]) == (
        "Mine desk", "Mine: write the quote", "Mine: drafting it now", "thread")


def test_work_comes_newest_first(api, mine):
    newer = Work.objects.create(organization=mine.org, agent=mine.agent, conversation=mine.chat, task="Newer")
    Work.objects.filter(id=mine.work.id).update(created_at=timezone.now() - datetime.timedelta(hours=1))
    assert [w["id"] for w in api.get("/api/home/work/").json()["items"]] == [str(newer.id), str(mine.work.id)]


def test_a_change_line_reads_as_home_shows_it_with_undo(api, mine):
    change = api.get("/api/home/changes/").json()["items"][0]
    assert (change["text"], change["canUndo"], change["undoneAt"]) == (
        "Mine desk set Mine Dana's Context: She said so", True, None)


def test_changes_page_back_by_before_without_skipping_a_line(api, org):
    now = timezone.now()
    made = [line(org, f"added Person {i} to Contacts", now - datetime.timedelta(minutes=i)) for i in range(60)]
    first = api.get("/api/home/changes/").json()
    second = api.get("/api/home/changes/", {"before": first["nextBefore"]}).json()
    ids = [c["id"] for c in first["items"] + second["items"]]
    assert (ids, second["nextBefore"]) == ([str(c.id) for c in made], None)


def test_changes_leave_out_what_shows_only_on_the_record(api, org):
    line(org, "changed Dana's phone", timezone.now(), listing="record")
    assert api.get("/api/home/changes/").json()["items"] == []


def test_a_changes_before_that_isnt_a_time_is_bad_input(api, org):
    assert api.get("/api/home/changes/", {"before": "last week"}).json()["error"] == "bad_input"


def test_undo_restores_what_was_there(api, mine):
    response = api.post(f"/api/changes/{mine.change.id}/undo/")
    assert (response.status_code, Contact.objects.get(id=mine.contact.id).context) == (200, None)


def test_undo_answers_the_undone_line_and_the_undos_own(api, mine):
    body = api.post(f"/api/changes/{mine.change.id}/undo/").json()
    assert (body["undone"]["id"], body["undone"]["undoneAt"] is not None, body["undo"]["text"]) == (
        str(mine.change.id), True, "You undid: set Mine Dana's Context: She said so")


def test_undo_twice_is_changed_409(api, mine):
    api.post(f"/api/changes/{mine.change.id}/undo/")
    response = api.post(f"/api/changes/{mine.change.id}/undo/")
    assert (response.status_code, response.json()["error"]) == (409, "changed")


def test_undo_of_a_change_since_changed_again_is_changed_and_keeps_the_new_value(api, mine):
    Contact.objects.filter(id=mine.contact.id).update(context="Prefers afternoons now")
    response = api.post(f"/api/changes/{mine.change.id}/undo/")
    assert (response.status_code, Contact.objects.get(id=mine.contact.id).context) == (409, "Prefers afternoons now")


def test_undo_of_a_change_without_undo_is_unsupported_422(api, org):
    change = line(org, "added Dana to Contacts", timezone.now())
    response = api.post(f"/api/changes/{change.id}/undo/")
    assert (response.status_code, response.json()["error"]) == (422, "unsupported")


def test_cards_list_the_open_ones(api, mine):
    Card.objects.filter(id=mine.card.id).update(resolved_at=timezone.now())
    assert [c["id"] for c in api.get("/api/home/cards/").json()["items"]] == [str(mine.try_again.id)]


def test_dismiss_resolves_the_card(api, mine):
    body = api.post(f"/api/cards/{mine.card.id}/dismiss/").json()
    mine.card.refresh_from_db()
    assert (body["resolvedAt"] is not None, mine.card.resolved_at is not None) == (True, True)
