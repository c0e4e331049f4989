"""What the browser tests do to the workspace from outside the browser, as another process would (a worker).

Run as `python tests/browser/act.py COMMAND [ARG]` with the test stack's environment (its SQLite files):
- `seed`: the example workspace (seed_demo), plus what Home should show: a change with Undo, an ask from
  Client desk's thread (run here on the scripted model), and a morning summary. Prints ids as JSON.
- `change SENTENCE`: Client desk records a change, as a worker's tool would; prints the commit time as JSON.
- `undoable CONTACT CONTEXT`: Client desk sets CONTACT's Context, a change with Undo; prints its sentence.
- `held SUBJECT`: Client desk emails Dana with mail.send, the check off for that one call: a held email, on Home
  for two minutes with Undo; prints its id and its change's sentence.
- `held_state ID`: the held email's state, and how many copies of it are in the account's sent mail.
- `ask TITLE QUESTION`: Client desk's thread TITLE waits for the owner's yes and asks QUESTION (the rows an ask
  leaves, written directly: no turn runs).
- `propose_template ID`: Client desk proposes adding template ID with templates.propose_add, as its thread would,
  with the answer it found to the template's first question.
- `agent_made NAME`: whether the workspace has agent NAME, whom it reports to, and its skills and routines.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

ASK = "Set Rosa's Context to “Prefers invoices by post”? She said so on the phone."


def seed() -> dict:
    from agents import services as agent_services
    from agents.models import Agent, Conversation
    from agents.runtime import scheduler
    from agents.runtime.model import ScriptedModel, call, say, set_model
    from checks.models import Ask
    from core.models import Organization
    from records.models import Contact
    from routines.models import Summary

    call_command("seed_demo", stdout=open(os.devnull, "w"))
    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    rosa = Contact.objects.get(organization=org, name="Rosa Ortiz")

    change = undoable("Rosa Ortiz", "Pays by card, on the day.", why="She said so at the shop.")

    # An ask: Client desk's thread is held back from rewriting Rosa's Context, and asks Sam. The turns run here, in
    # order (drain), rather than on the stack's worker, which answers everything with the same words.
    scheduler.dispatch = lambda **kwargs: []
    set_model(ScriptedModel([
        call("start_thread", {"title": "Ortiz Bakery", "task": "Keep Rosa's record up to date"}),
        say("Started a thread on Ortiz Bakery."),
        call("use_tool", {"name": "contacts.context", "input": {"contactId": str(rosa.id),
                                                                 "text": "Prefers invoices by post",
                                                                 "why": "She said so on the phone."}}),
        say(ASK),
    ]))
    agent_services.owner_message_send(org=org, agent=desk, text="Keep Rosa's record up to date.")
    scheduler.drain(org_id=org.id)
    set_model(None)
    ask = Ask.objects.get(organization=org, state=Ask.State.WAITING)
    assert Conversation.objects.filter(agent=desk, kind="thread", title="Ortiz Bakery").exists()

    Summary.objects.create(organization=org, text="Good morning, Sam. Client desk kept Rosa's record up to date; "
                                                  "Rosa's invoice preference waits for your word.")
    return {
        "username": "sam",
        "password": os.environ.get("DEMO_PASSWORD") or "fernhill",
        "agents": {a.name: str(a.id) for a in Agent.objects.filter(organization=org)},
        "change": change,
        "ask": {"id": str(ask.id)},
    }


def undoable(contact: str, context: str, why: str = "She said so.") -> dict:
    """A change with Undo, made by Client desk's tool with the check off for that one call."""
    from agents.models import Agent
    from core.actors import Actor
    from core.context import ToolContext
    from core.models import Change, Organization
    from records.models import Contact
    from tools.pipeline import use_tool

    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    person = Contact.objects.get(organization=org, name=contact)
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    try:
        ctx = ToolContext(org=org, actor=Actor.for_agent(desk), conversation_id="browser-tests")
        result = use_tool(ctx, "contacts.context", {"contactId": str(person.id), "text": context, "why": why})
    finally:
        org.check_enabled = True
        org.save(update_fields=["check_enabled"])
    assert "error" not in result, result
    made = Change.objects.filter(organization=org, tool="contacts.context").latest("at")
    return {"id": str(made.id), "sentence": made.sentence}


def change(sentence: str) -> dict:
    from agents.models import Agent
    from core.actors import Actor
    from core.models import Change, Organization
    from core.services import change_record

    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    change_record(org=org, actor=Actor.for_agent(desk), tool="contacts.create", kind="makes", sentence=sentence,
                  listing=Change.Listing.HOME)  # autocommit: committed, and the notify sent, on return
    return {"committed_at": time.time()}


def held(subject: str) -> dict:
    from agents.models import Agent
    from core.actors import Actor
    from core.context import ToolContext
    from core.models import Change, Organization
    from integrations.local.models_mail import HeldEmail
    from tools.pipeline import use_tool

    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    try:
        ctx = ToolContext(org=org, actor=Actor.for_agent(desk), conversation_id="browser-tests")
        result = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "subject": subject,
                                             "text": "Hi Dana, the proofs are ready."})
    finally:
        org.check_enabled = True
        org.save(update_fields=["check_enabled"])
    assert "error" not in result and "held" in result, result
    made = HeldEmail.objects.get(organization=org, number=result["held"]["trigger"])
    sentence = Change.objects.get(organization=org, tool="mail.send", target_id=str(made.id)).sentence
    return {"id": str(made.id), "sentence": sentence}


def held_state(held_id: str) -> dict:
    from integrations.local.models_mail import HeldEmail, LocalMailMessage

    made = HeldEmail.objects.get(pk=held_id)
    sent = LocalMailMessage.objects.filter(connection=made.connection, box=LocalMailMessage.Box.SENT,
                                           message_id=made.message_id).count()
    return {"state": made.state, "sent": sent, "sent_at": made.sent_at is not None}


def ask(title: str, question: str) -> dict:
    from agents import services as agent_services
    from agents.models import Agent
    from checks.models import Ask, CheckDecision
    from core.models import Organization

    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    thread = agent_services.thread_start(agent=desk, title=title)
    decision = CheckDecision.objects.create(
        organization=org, tool="contacts.context", outcome="ask", reason="it removes or rewrites something the "
        "owner didn't point to", decided_by="rules", fingerprint=f"browser:{title}", actor_kind="agent",
        actor_id=str(desk.id), conversation_id=str(thread.id),
    )
    created = Ask.objects.create(organization=org, fingerprint=decision.fingerprint, decision=decision)
    agent_services.message_append(conversation=thread, role="agent", text=question)  # notifies Home
    return {"id": str(created.id)}


def propose_template(template_id: str) -> dict:
    from agents.models import Agent
    from core.actors import Actor
    from core.context import ToolContext
    from core.models import Organization
    from tools.pipeline import use_tool

    org = Organization.objects.get(name="Fernhill Studio")
    desk = Agent.objects.get(organization=org, name="Client desk")
    ctx = ToolContext(org=org, actor=Actor.for_agent(desk), conversation_id="browser-tests")
    read = use_tool(ctx, "templates.read", {"id": template_id})
    first = read["questions"][0]
    result = use_tool(ctx, "templates.propose_add", {
        "id": template_id, "why": "Meetings with clients take you a dozen emails each; this would book them.",
        "answers": {first["blank"]: {"value": "Weekdays, 10 AM to 4 PM", "found": "your email signature"}},
    })
    assert "asked" in result, result
    return {"asked": result["asked"], "name": read["name"]}


def agent_made(name: str) -> dict:
    from agents.models import Agent
    from core.models import Organization

    org = Organization.objects.get(name="Fernhill Studio")
    agent = Agent.objects.filter(organization=org, name=name).select_related("reports_to").first()
    if agent is None:
        return {"exists": False}
    return {"exists": True, "reports_to": agent.reports_to.name if agent.reports_to else None,
            "skills": list(agent.skills.values_list("name", flat=True)),
            "routines": sorted(agent.routines.values_list("name", flat=True))}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    print(json.dumps({"seed": seed, "change": change, "undoable": undoable, "held": held,
                      "held_state": held_state, "ask": ask, "propose_template": propose_template,
                      "agent_made": agent_made}[command](*args)))
