"""A held email can be opened from its line on Home before it goes: the whole message (recipients, subject, text,
attachments) with Undo there too; another workspace's held email is a 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.actors import Actor
from core.context import ToolContext
from core.models import Change
from integrations.local.models_mail import HeldEmail
from integrations.services import connection_create_local
from tests.integrations.mail_helpers import mail_root  # noqa: F401
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db


def send(org, agent, **fields) -> HeldEmail:
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    connection_create_local(org=org, account=f"sam@{org.id}.test", groups=["mail"])
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-1")
    out = use_tool(ctx, "mail.send", {"to": ["dana@juniperdental.test"], "cc": ["li@juniperdental.test"],
                                      "subject": "Your quote", "text": "Hi Dana,\n\nThe quote is $4,800."} | fields)
    assert "held" in out, out
    return HeldEmail.objects.get(organization=org)


def test_the_line_on_home_opens_the_whole_email_with_undo(client, org, agent):
    held = send(org, agent)
    client.force_login(org.owner)
    home = client.get(reverse("home")).content.decode()
    url = reverse("held_email", args=[held.id])
    assert f'href="{url}"' in home
    page = client.get(url).content.decode()
    change = Change.objects.get(tool="mail.send", target_id=str(held.id))
    assert all(part in page for part in (
        "dana@juniperdental.test", "li@juniperdental.test", "Your quote", "The quote is $4,800.", "Client desk",
        f'action="{reverse("change_undo", args=[change.id])}"', "It goes at",
    )), page


def test_undo_from_the_page_stops_it_and_the_page_then_says_so(client, org, agent):
    held = send(org, agent)
    client.force_login(org.owner)
    change = Change.objects.get(tool="mail.send", target_id=str(held.id))
    client.post(reverse("change_undo", args=[change.id]), {"next": reverse("held_email", args=[held.id])})
    page = client.get(reverse("held_email", args=[held.id])).content.decode()
    assert HeldEmail.objects.get(id=held.id).state == "undone"
    assert "Undone: it never went." in page and reverse("change_undo", args=[change.id]) not in page


def test_another_workspaces_held_email_is_not_found(client, org, agent, other_org):
    from tests.factories import AgentFactory

    theirs = send(other_org, AgentFactory(organization=other_org, name="Their desk"))
    client.force_login(org.owner)
    response = client.get(reverse("held_email", args=[theirs.id]))
    assert response.status_code == 404 and "Your quote" not in response.content.decode()
