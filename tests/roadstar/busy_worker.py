"""The busy-database test's other process (test_busy.py): on a SQLite file of its own, it holds SQLite's write lock
from a second connection, then writes through use_tool and through the REST API, and prints what they answered as
one JSON line."""

from __future__ import annotations

import json
import os
import sqlite3
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.test")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from rest_framework.test import APIClient

    from agents.models import Message
    from core.actors import Actor
    from core.context import ToolContext
    from records.models import Contact
    from tests.factories import AgentFactory, OrganizationFactory
    from tools.pipeline import use_tool

    call_command("migrate", verbosity=0)
    org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", owner_email="sam@fernhill.test",
                              check_enabled=False)
    AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    desk = AgentFactory(organization=org, name="Client desk")
    ctx = ToolContext(org=org, actor=Actor.for_agent(desk), conversation_id="thread-1")
    api = APIClient()
    api.force_authenticate(user=org.owner)
    owner = Client(raise_request_exception=False)
    owner.force_login(org.owner)  # the session is written before the lock is taken

    holder = sqlite3.connect(settings.DATABASES["default"]["NAME"], timeout=0)
    holder.execute("BEGIN IMMEDIATE")  # another process's long write: the lock is held past the busy timeout
    tool = use_tool(ctx, "contacts.create", {"name": "Dana Whitfield"})
    rest = api.post("/api/contacts/", {"name": "Rosa Ortiz"}, format="json")
    page = owner.post(f"/chat/{desk.id}/", {"text": "Call Dana back"})
    holder.rollback()
    holder.close()
    after = use_tool(ctx, "contacts.create", {"name": "Dana Whitfield"})
    print(json.dumps({
        "tool": tool, "rest_status": rest.status_code, "rest": rest.json(), "retry_after": rest.get("Retry-After"),
        "page_status": page.status_code, "page_busy": "Roadstar is busy for a moment" in page.content.decode(),
        "chat_messages": Message.objects.filter(text="Call Dana back").count(),
        "after_error": after.get("error"),
        "contacts": list(Contact.objects.filter(organization=org).values_list("name", flat=True)),
    }))


if __name__ == "__main__":
    main()
    sys.exit(0)
