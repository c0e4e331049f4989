"""What tests/use_cases/test_yes_over_the_wire.py does to the workspace from outside the web and the worker, as
another process would. Run as `python tests/use_cases/wire_act.py COMMAND` with the stack's environment:

- `seed`: the example workspace (seed_demo) with the check on, the Bookkeeper's "Overdue invoices" routine (Sam's
  note: over $5,000, ask first) and a "Front desk" agent; prints the ids the test needs as JSON.
- `fire`: the routine's time came: its run goes to its own thread, and the worker picks it up.
- `state`: what the test asserts on, as JSON: the checked actions, the asks, the held emails, the conversations.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

NOTE = "Chase invoices more than 7 days overdue. Friendly the first time. Over $5,000, ask Sam first."


def seed() -> dict:
    from agents.models import Agent
    from core.models import Organization
    from records.models import Contact
    from routines import services as routine_services

    call_command("seed_demo", stdout=open(os.devnull, "w"))
    org = Organization.objects.get(name="Fernhill Studio")
    org.check_enabled = True
    org.save(update_fields=["check_enabled"])
    keeper = Agent.objects.get(organization=org, name="Bookkeeper")
    routine_services.routine_add(org=org, agent=keeper, name="Overdue invoices", when={"at": "0 9 * * 1"},
                                 note=NOTE)
    Agent.objects.create(organization=org, name="Front desk", job="Keeps the clients' records up to date")
    return {
        "username": "sam",
        "password": os.environ.get("DEMO_PASSWORD") or "fernhill",
        "agents": {a.name: str(a.id) for a in Agent.objects.filter(organization=org)},
        "rosa": str(Contact.objects.get(organization=org, name="Rosa Ortiz").id),
    }


def fire() -> dict:
    from routines import services as routine_services
    from routines.models import Routine

    routine = Routine.objects.get(name="Overdue invoices")
    routine_services.routine_fire(routine=routine, started_by="its time came")
    return {"fired": routine.name}


def state() -> dict:
    from agents.models import Conversation
    from checks.models import Ask, CheckDecision
    from integrations.local.models_mail import HeldEmail
    from records.models import Contact

    return {
        "decisions": [[d.tool, d.outcome, d.conversation_id or ""]
                      for d in CheckDecision.objects.order_by("created_at")],
        "asks": [{"id": str(a.id), "state": a.state, "tool": a.decision.tool, "used": a.used_by_id is not None,
                  "conversation": a.decision.conversation_id or ""}
                 for a in Ask.objects.select_related("decision").order_by("created_at")],
        "held": [{"to": h.to, "subject": h.subject} for h in HeldEmail.objects.order_by("number")],
        "busy": Conversation.objects.exclude(state=Conversation.State.IDLE).count(),
        "threads": {str(c.id): c.title for c in Conversation.objects.filter(kind="thread")},
        "rosa": Contact.objects.get(name="Rosa Ortiz").context,
    }


if __name__ == "__main__":
    command = sys.argv[1]
    print(json.dumps({"seed": seed, "fire": fire, "state": state}[command]()))
