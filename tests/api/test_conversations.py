"""/api/agents/<id>/chat/ and /api/conversations/: an agent's chat (read by seq, write in it), threads read-only,
and Try again."""

import pytest

from agents.models import Conversation, Message, Work
from core.models import Card
from tests.factories import messages_bulk_create


@pytest.fixture
def chat(mine):
    # 120 messages in all, seq 0 to 119: the world's two, and 118 more.
    messages_bulk_create(
        [Message(conversation=mine.chat, seq=seq, role="agent", text=f"reply {seq}") for seq in range(2, 120)]
    )
    return mine.chat


def seqs(body) -> list[int]:
    return [m["seq"] for m in body["items"]]


def test_the_chat_gives_its_newest_50_messages_oldest_first(api, mine, chat):
    body = api.get(f"/api/agents/{mine.agent.id}/chat/").json()
    assert (seqs(body), body["nextBefore"], body["nextAfter"]) == (list(range(70, 120)), 70, None)


def test_before_pages_back_to_the_first_message(api, mine, chat):
    body = api.get(f"/api/agents/{mine.agent.id}/chat/", {"before": 20}).json()
    assert (seqs(body), body["nextBefore"], body["nextAfter"]) == (list(range(0, 20)), None, 19)


def test_after_gives_what_came_since(api, mine, chat):
    body = api.get(f"/api/agents/{mine.agent.id}/chat/", {"after": 115}).json()
    assert (seqs(body), body["nextBefore"], body["nextAfter"]) == ([116, 117, 118, 119], 116, None)


def test_after_pages_forward_by_limit(api, mine, chat):
    body = api.get(f"/api/agents/{mine.agent.id}/chat/", {"after": -1, "limit": 10}).json()
    assert (seqs(body), body["nextBefore"], body["nextAfter"]) == (list(range(10)), None, 9)


def test_paging_forward_reaches_every_message_once(api, mine, chat):
    seen, after = [], -1
    while after is not None:
        body = api.get(f"/api/agents/{mine.agent.id}/chat/", {"after": after, "limit": 33}).json()
        seen += seqs(body)
        after = body["nextAfter"]
    assert seen == list(range(120))


def test_a_message_gives_its_role_text_and_time(api, mine):
    first = api.get(f"/api/agents/{mine.agent.id}/chat/").json()["items"][0]
    assert (first["seq"], first["role"], first["text"]) == (0, "owner", "Mine: find the quote")


@pytest.mark.parametrize("params", [{"after": "x"}, {"before": -1}, {"limit": 0}, {"limit": 201}, {"after": 2**40}])
def test_paging_by_anything_but_a_seq_is_bad_input(api, mine, params):
    response = api.get(f"/api/agents/{mine.agent.id}/chat/", params)
    assert (response.status_code, response.json()["error"]) == (400, "bad_input")


def test_the_chat_of_an_agent_that_never_chatted_is_empty(api, org):
    from tests.factories import AgentFactory

    quiet = AgentFactory(organization=org, name="Bookkeeper")
    body = api.get(f"/api/agents/{quiet.id}/chat/").json()
    assert (body["conversation"]["kind"], body["items"]) == ("chat", [])


def test_writing_in_the_chat_appends_the_owners_message(api, mine):
    response = api.post(f"/api/agents/{mine.agent.id}/chat/", {"text": "Send Dana the quote"}, format="json")
    assert response.status_code == 201
    last = Message.objects.filter(conversation=mine.chat).order_by("-seq").first()
    assert (last.role, last.text, response.json()["message"]["seq"]) == ("owner", "Send Dana the quote", last.seq)


def test_writing_in_the_chat_opens_a_piece_of_work_for_the_agent(api, mine):
    api.post(f"/api/agents/{mine.agent.id}/chat/", {"text": "Send Dana the quote"}, format="json")
    work = Work.objects.filter(conversation=mine.chat).latest("created_at")
    assert (work.task, work.requester_id) == ("Send Dana the quote", None)


def test_writing_in_the_chat_queues_the_agents_turn(api, mine):
    body = api.post(f"/api/agents/{mine.agent.id}/chat/", {"text": "Send Dana the quote"}, format="json").json()
    assert body["conversation"]["state"] == "queued"


def test_writing_to_a_chat_by_its_conversation_id_is_the_same(api, mine):
    response = api.post(f"/api/conversations/{mine.chat.id}/messages/", {"text": "And the invoice"}, format="json")
    assert response.status_code == 201
    assert Message.objects.filter(conversation=mine.chat, text="And the invoice", role="owner").exists()


def test_an_empty_message_is_bad_input(api, mine):
    response = api.post(f"/api/agents/{mine.agent.id}/chat/", {"text": "   "}, format="json")
    assert (response.status_code, response.json()["error"]) == (400, "bad_input")


def test_a_threads_messages_read(api, mine):
    body = api.get(f"/api/conversations/{mine.thread.id}/messages/").json()
    assert ([m["text"] for m in body["items"]], body["conversation"]["kind"]) == (["Mine: write the quote"], "thread")


def test_writing_in_a_thread_is_unsupported_and_adds_nothing(api, mine):
    response = api.post(f"/api/conversations/{mine.thread.id}/messages/", {"text": "Hurry"}, format="json")
    assert (response.status_code, response.json()["error"]) == (422, "unsupported")
    assert not Message.objects.filter(conversation=mine.thread, text="Hurry").exists()


def test_conversations_list_the_one_active_last_first(api, mine):
    Conversation.objects.filter(id=mine.chat.id).update(updated_at=mine.thread.updated_at.replace(year=2030))
    ids = [c["id"] for c in api.get("/api/conversations/").json()["items"]]
    assert ids[:2] == [str(mine.chat.id), str(mine.thread.id)]


def test_conversations_filter_by_agent_and_kind(api, mine):
    body = api.get("/api/conversations/", {"agent": str(mine.agent.id), "kind": "thread"}).json()
    assert [c["id"] for c in body["items"]] == [str(mine.thread.id)]


def test_a_conversation_reads(api, mine):
    body = api.get(f"/api/conversations/{mine.thread.id}/").json()
    assert (body["title"], body["agent"]["name"], body["open"]) == ("Mine quote", "Mine desk", True)


def test_try_again_queues_the_turn_and_resolves_its_card(api, mine):
    response = api.post(f"/api/conversations/{mine.thread.id}/try-again/")
    mine.try_again.refresh_from_db()
    assert (response.status_code, response.json()["conversation"]["state"]) == (202, "queued")
    assert mine.try_again.resolved_at is not None


def test_try_again_leaves_other_cards_open(api, mine):
    api.post(f"/api/conversations/{mine.thread.id}/try-again/")
    assert Card.objects.filter(id=mine.card.id, resolved_at__isnull=True).exists()


def test_try_again_when_nothing_waits_for_it_is_changed_and_queues_nothing(api, mine):
    response = api.post(f"/api/conversations/{mine.chat.id}/try-again/")
    mine.chat.refresh_from_db()
    assert (response.status_code, response.json()["error"], mine.chat.state) == (409, "changed", "idle")


def test_try_again_twice_is_changed_the_second_time(api, mine):
    api.post(f"/api/conversations/{mine.thread.id}/try-again/")
    assert api.post(f"/api/conversations/{mine.thread.id}/try-again/").status_code == 409
