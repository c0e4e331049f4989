"""The owner's message that arrives while the model is writing the answer to the one before is answered too: it
takes a seq before the answer's, and was left unanswered when a turn looked only after its last reply (seen in
bench/pickup.py on PostgreSQL, the owner writing every 0.3 s)."""

from agents import services
from agents.models import Conversation, Message
from agents.runtime.model import say
from agents.runtime.turn import drain


def test_a_message_sent_while_the_model_writes_its_answer_gets_an_answer_of_its_own(org, staff, model):
    desk = staff["Client desk"]

    def answer_while_the_owner_writes_again(request):
        services.owner_message_send(org=org, agent=desk, text="And book Thursday too")
        return say("Noted: the Tuesday call.")

    model.add(answer_while_the_owner_writes_again, say("Thursday is booked too."))
    services.owner_message_send(org=org, agent=desk, text="Book the Tuesday call")
    drain(org_id=org.id)

    assert len(model.requests) == 2
    # The second request shows it as it happened to the model: after the answer that was written without it.
    shown = [(m["role"], m["content"]) for m in model.requests[1]["messages"][1:]]
    assert [role for role, _ in shown] == ["user", "assistant", "user"]
    assert "Book the Tuesday call" in shown[0][1] and "And book Thursday too" in shown[2][1]
    assert shown[1][1] == "Noted: the Tuesday call."
    chat = services.chat_for(agent=desk)
    assert Conversation.objects.get(id=chat.id).state == Conversation.State.IDLE
    said = list(Message.objects.filter(conversation=chat).order_by("seq").values_list("role", "text"))
    assert said[-1] == (Message.Role.AGENT, "Thursday is booked too.")
