"""The owner's page for AI apps: tokens listed, made (shown once), revoked; Mac agents' instruction files."""

import pytest
from django.test import Client

from mcp_server import services
from mcp_server.models import McpToken
from tests.factories import AgentFactory


@pytest.fixture
def owner(org):
    client = Client()
    client.force_login(org.owner)
    return client


def test_the_page_needs_a_sign_in(db):
    assert Client().get("/connections/mcp/")["Location"].startswith("/login/")


def test_the_page_lists_this_workspaces_tokens_only(owner, token, other_org):
    theirs = AgentFactory(organization=other_org, name="Their desk")
    services.mcp_token_make(org=other_org, agent=theirs, name="Their laptop")
    page = owner.get("/connections/mcp/").content.decode()
    assert "Claude on Sam&#x27;s laptop" in page and "Their laptop" not in page


def test_making_a_token_shows_it_once(owner, desk):
    made = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": "Claude"})
    plaintext = made.context["plaintext"]
    assert plaintext in made.content.decode() and services.mcp_token_sign_in(plaintext).agent == desk
    assert plaintext not in owner.get("/connections/mcp/").content.decode()


def test_the_made_page_says_how_to_connect(owner, desk):
    made = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": "Claude"}).content.decode()
    assert "/mcp</code>" in made and "Authorization: Bearer rsm_" in made


def test_a_token_isnt_made_for_another_workspaces_agent(owner, other_org):
    theirs = AgentFactory(organization=other_org, name="Their desk")
    assert owner.post("/connections/mcp/make", {"agent": str(theirs.id), "name": "Claude"}).status_code == 400
    assert not McpToken.objects.exists()


def test_a_token_needs_an_agent(owner):
    assert owner.post("/connections/mcp/make", {"agent": "not-an-id", "name": "Claude"}).status_code == 400


def test_a_token_needs_a_name(owner, desk):
    reply = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": ""})
    assert reply.status_code == 400 and not McpToken.objects.exists()


def test_revoking_turns_the_token_away(owner, token):
    row, plaintext = token
    assert owner.post(f"/connections/mcp/{row.id}/revoke").status_code == 302
    assert services.mcp_token_sign_in(plaintext) is None


def test_another_workspaces_token_cant_be_revoked(owner, other_org):
    theirs = AgentFactory(organization=other_org, name="Their desk")
    row, plaintext = services.mcp_token_make(org=other_org, agent=theirs, name="Their laptop")
    assert owner.post(f"/connections/mcp/{row.id}/revoke").status_code == 404
    assert services.mcp_token_sign_in(plaintext) is not None


def test_a_mac_agents_claude_md_is_its_instructions(owner, desk):
    reply = owner.get(f"/connections/mcp/agents/{desk.id}/CLAUDE.md")
    assert reply["Content-Type"].startswith("text/markdown") and reply.content.decode().startswith("# Client desk")


def test_another_workspaces_agent_has_no_file_here(owner, other_org):
    theirs = AgentFactory(organization=other_org, name="Their desk")
    assert owner.get(f"/connections/mcp/agents/{theirs.id}/CLAUDE.md").status_code == 404


def test_only_claude_md_and_agents_md_are_served(owner, desk):
    assert owner.get(f"/connections/mcp/agents/{desk.id}/README.md").status_code == 404


def test_the_connections_page_still_serves_the_apps(owner):
    assert owner.get("/connections/").status_code == 200


def test_a_mac_agents_token_page_links_its_instruction_files(owner, desk):
    desk.runs_on = "mac"
    desk.save(update_fields=["runs_on"])
    made = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": "Claude Code"}).content.decode()
    assert (
        f"/connections/mcp/agents/{desk.id}/CLAUDE.md" in made
        and f"/connections/mcp/agents/{desk.id}/AGENTS.md" in made
    )


# --- the address an app connects to ---------------------------------------------------------------------------


def test_the_page_shows_the_address_the_browser_reached(owner, settings):
    settings.ROADSTAR_URL = ""
    settings.ALLOWED_HOSTS = ["studio.test"]
    page = owner.get("/connections/mcp/", HTTP_HOST="studio.test:8123").content.decode()
    assert '<code id="mcp-url" class="copy-row__text">http://studio.test:8123/mcp</code>' in page
    assert ":8000" not in page and 'data-copy="mcp-url"' in page


def test_the_page_shows_roadstar_url_when_it_is_set(owner, desk, settings):
    settings.ROADSTAR_URL = "https://studio.example.com"
    settings.ALLOWED_HOSTS = ["studio.test"]
    page = owner.get("/connections/mcp/", HTTP_HOST="studio.test:8123").content.decode()
    assert ">https://studio.example.com/mcp</code>" in page and "studio.test:8123" not in page
    made = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": "Claude"},
                      HTTP_HOST="studio.test:8123").content.decode()
    assert "claude mcp add --transport http roadstar https://studio.example.com/mcp" in made


def test_the_token_and_address_each_have_a_copy_button(owner, desk):
    made = owner.post("/connections/mcp/make", {"agent": str(desk.id), "name": "Claude"}).content.decode()
    for target in ("token", "mcp-url", "mcp-header", "mcp-claude"):
        assert f'data-copy="{target}"' in made and f'id="{target}"' in made
    assert "/static/roadstar/copy.js" in made


def test_connect_an_app_gives_numbered_steps_the_address_to_paste_and_a_labelled_form(owner, settings):
    settings.ROADSTAR_URL = "https://studio.example.com"
    page = owner.get("/connections/mcp/").content.decode()
    box = page.split('<h2 id="connect-app">Connect an app</h2>', 1)[1].split("</section>", 1)[0]
    assert box.count("<li>") == 3 and '<ol class="steps">' in box
    assert '<code id="mcp-url-connect" class="copy-row__text">https://studio.example.com/mcp</code>' in box
    assert 'data-copy="mcp-url-connect"' in box
    assert '<label for="token-agent">It works as</label>' in box and 'id="token-agent"' in box
    assert '<label for="token-name">What it is</label>' in box and 'id="token-name"' in box
    assert "style=" not in box  # the project's CSS only: the CSP allows no inline styles
