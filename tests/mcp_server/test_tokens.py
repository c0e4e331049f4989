"""Connection tokens: made once and shown once, kept only as a SHA-256, revocable, one conversation each."""

import hashlib
import io

import pytest
from django.core.management import CommandError, call_command

from agents.models import Conversation, Message
from agents.services import message_append
from core.errors import ToolError
from mcp_server import services
from mcp_server.models import McpToken
from tests.factories import AgentFactory


def test_a_token_is_kept_only_as_its_sha256(token):
    row, plaintext = token
    row.refresh_from_db()
    stored = [str(getattr(row, f.attname)) for f in McpToken._meta.fields]
    assert row.token_hash == hashlib.sha256(plaintext.encode()).hexdigest()
    assert not any(plaintext in value for value in stored)


def test_each_token_has_its_own_outside_conversation_of_its_agent(org, desk):
    first, _ = services.mcp_token_make(org=org, agent=desk, name="Claude")
    second, _ = services.mcp_token_make(org=org, agent=desk, name="Codex")
    conversations = Conversation.objects.filter(id__in=[first.conversation_id, second.conversation_id])
    assert [(c.kind, c.agent_id) for c in conversations] == [("outside", desk.id)] * 2


def test_a_token_is_not_made_for_another_workspaces_agent(org, other_org):
    stranger = AgentFactory(organization=other_org, name="Their desk")
    with pytest.raises(ToolError) as refused:
        services.mcp_token_make(org=org, agent=stranger, name="Claude")
    assert refused.value.kind == "not_found" and not McpToken.objects.exists()


def test_a_token_needs_a_name(org, desk):
    with pytest.raises(ToolError) as refused:
        services.mcp_token_make(org=org, agent=desk, name="  ")
    assert refused.value.kind == "bad_input"


def test_the_token_signs_in_as_its_agent(token, desk):
    _, plaintext = token
    assert services.mcp_token_sign_in(plaintext).agent == desk


def test_an_unknown_token_signs_in_as_no_one(token):
    _, plaintext = token
    assert services.mcp_token_sign_in(plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B")) is None


def test_a_revoked_token_signs_in_as_no_one(org, token):
    row, plaintext = token
    services.mcp_token_revoke(org=org, token_id=row.id)
    assert services.mcp_token_sign_in(plaintext) is None


def test_revoking_closes_the_apps_conversation(org, token):
    row, _ = token
    services.mcp_token_revoke(org=org, token_id=row.id)
    assert Conversation.objects.get(id=row.conversation_id).closed_at is not None


def test_another_workspace_cannot_revoke_a_token(other_org, token):
    row, plaintext = token
    with pytest.raises(ToolError) as refused:
        services.mcp_token_revoke(org=other_org, token_id=row.id)
    assert refused.value.kind == "not_found" and services.mcp_token_sign_in(plaintext) is not None


def test_signing_in_notes_when_the_token_was_last_used(token):
    row, plaintext = token
    services.mcp_token_sign_in(plaintext)
    row.refresh_from_db()
    assert row.last_used_at is not None


def test_each_answer_is_given_to_the_app_once(token):
    row, _ = token
    message_append(conversation=row.conversation, role=Message.Role.ANSWER, text="[Answer from Proposal writer] £4,200")
    first = services.answers_claim(token=row)
    assert [m.text for m in first] == ["[Answer from Proposal writer] £4,200"]
    assert services.answers_claim(token=row) == []


def test_answers_that_arrive_later_are_given_next_time(token):
    row, _ = token
    message_append(conversation=row.conversation, role=Message.Role.ANSWER, text="first")
    services.answers_claim(token=row)
    message_append(conversation=row.conversation, role=Message.Role.ANSWER, text="second")
    assert [m.text for m in services.answers_claim(token=row)] == ["second"]


# --- manage.py mcp_token ------------------------------------------------------------------------------------------


def test_the_command_prints_a_token_that_signs_in(org, desk):
    out = io.StringIO()
    call_command("mcp_token", "--agent", "client desk", stdout=out, stderr=io.StringIO())
    assert services.mcp_token_sign_in(out.getvalue().strip()).agent == desk


def test_the_command_needs_the_workspace_when_there_are_two(org, desk, other_org):
    with pytest.raises(CommandError, match="--org"):
        call_command("mcp_token", "--agent", "Client desk", stdout=io.StringIO(), stderr=io.StringIO())


def test_the_command_finds_the_agent_in_the_named_workspace(org, desk, other_org):
    AgentFactory(organization=other_org, name="Client desk")
    out = io.StringIO()
    call_command("mcp_token", "--agent", "Client desk", "--org", "fernhill studio", stdout=out, stderr=io.StringIO())
    assert services.mcp_token_sign_in(out.getvalue().strip()).agent == desk


def test_the_command_names_the_agents_when_one_is_unknown(org, desk):
    with pytest.raises(CommandError, match="Client desk"):
        call_command("mcp_token", "--agent", "Bookkeeper", stdout=io.StringIO(), stderr=io.StringIO())
