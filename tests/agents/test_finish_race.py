"""A turn looks for new input and hands the conversation back under the conversation's lock, so the owner's
message sent at that moment is never left unanswered."""

import threading

import pytest
from django.db import connection, connections

from agents import services
from agents.models import Conversation
from agents.runtime import turn
from agents.runtime.model import say

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif("connection.vendor == 'sqlite'",
                    reason="the in-memory SQLite test database (shared cache) fails a second writer instead of making "
                           "it wait; on SQLite the look and the hand-back share an IMMEDIATE transaction's write lock")
def test_a_message_sent_while_the_turn_looks_for_more_is_answered(org, staff, model, monkeypatch):
    desk = staff["Client desk"]
    model.add(say("Noted."))
    monkeypatch.setattr("django_q.tasks.async_task", lambda *args, **kwargs: None)  # turns are run here, by hand
    services.owner_message_send(org=org, agent=desk, text="First")  # claimed at its commit
    chat = services.chat_for(agent=desk)
    assert Conversation.objects.get(id=chat.id).state == Conversation.State.RUNNING
    looked = turn.Turn.input_waits_at  # the look at the turn's end, under the conversation's lock
    sent = threading.Event()

    def the_owner_sends_another_meanwhile(self, next_seq):
        found = looked(self, next_seq)

        def send():
            try:
                services.owner_message_send(org=org, agent=desk, text="Second")
                sent.set()
            finally:
                connections.close_all()

        owner = threading.Thread(target=send)
        owner.start()
        # Unlocked, the message is saved and its wake-up finds the turn still running, before the turn goes idle;
        # locked, the owner waits for the turn's hand-back (this wait then runs out).
        owner.join(3)
        the_owner_sends_another_meanwhile.owner = owner
        return found

    monkeypatch.setattr(turn.Turn, "input_waits_at", the_owner_sends_another_meanwhile)
    turn.run_turn(str(chat.id))
    the_owner_sends_another_meanwhile.owner.join(30)
    assert sent.is_set()
    assert Conversation.objects.get(id=chat.id).state != Conversation.State.IDLE  # queued (or claimed) again
    assert connection.vendor == "postgresql"
