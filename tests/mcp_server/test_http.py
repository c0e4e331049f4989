"""The MCP server over HTTP in this process (httpx's ASGI transport into roadstar.asgi.application), with the
SDK's own client signed in by a bearer token."""

import json

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from agents.models import Work
from agents.runtime.agent_tools import AGENT_TOOLS, OUTSIDE, tools_for_place
from agents.runtime.sql_storage import answer_work
from mcp_server import services
from mcp_server.server import ANSWERS_URI, INSTRUCTIONS_URI
from tests.factories import ContactFactory
from tests.mcp_server.conftest import BASE, asgi_app, connected, run
from tools.catalog import browse_description
from tools.registry import Tool, ToolInput, _schema_for

pytestmark = pytest.mark.django_db(transaction=True)

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def post(path: str, *, headers: dict | None = None, body: dict | None = None, base: str = BASE) -> httpx2.Response:
    async def go():
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=asgi_app()), base_url=base) as http:
            return await http.post(path, json=body or INITIALIZE, headers={
                "Accept": "application/json, text/event-stream", **(headers or {})})

    return anyio.run(go)


def get(path: str) -> httpx2.Response:
    async def go():
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=asgi_app()), base_url=BASE) as http:
            return await http.get(path)

    return anyio.run(go)


def call(plaintext, tool, arguments, *, mode="auto"):
    async def go():
        async with connected(plaintext, app=asgi_app(), mode=mode) as client:
            return await client.call_tool(tool, arguments)

    return run(go)


def result_of(called) -> dict:
    return json.loads(called.content[0].text)


def listed(plaintext):
    async def go():
        async with connected(plaintext, app=asgi_app()) as client:
            return (await client.list_tools()).tools

    return run(go)


# --- what it holds ------------------------------------------------------------------------------------------------


def test_it_lists_exactly_the_agent_tools_held_outside(token):
    _, plaintext = token
    assert [t.name for t in listed(plaintext)] == [t.name for t in tools_for_place(OUTSIDE)]


def test_an_app_holds_what_the_spec_gives_a_mac_or_outside_app(token):
    # spec/tools.md: browse/find/use, hand_off, remember and skills; no memory, thread, agent or routine tools.
    _, plaintext = token
    assert {t.name for t in listed(plaintext)} == {
        "browse_tools", "find_tools", "use_tool", "hand_off", "remember", "skills"}


def test_each_tool_has_the_registrys_schema_and_description(token):
    row, plaintext = token
    for tool in listed(plaintext):
        spec = AGENT_TOOLS[tool.name].spec()
        # browse_tools' groups are the token's workspace's (an optional group it has off is left out).
        description = browse_description(row.organization) if tool.name == "browse_tools" else spec["description"]
        assert (tool.description, tool.input_schema) == (description, spec["parameters"]), tool.name


def test_a_new_agent_tool_offered_outside_is_listed_with_no_change_here(token):
    _, plaintext = token

    class PingInput(ToolInput):
        word: str

    AGENT_TOOLS.add(Tool(name="ping", description="Say a word back.", input=PingInput,
                         run=lambda ctx, inp: {"pong": inp.word}, kind="reads", places=frozenset({OUTSIDE})))
    try:
        tools = {t.name: t for t in listed(plaintext)}
        pong = call(plaintext, "ping", {"word": "hello"})
    finally:
        AGENT_TOOLS.pop("ping")
    assert tools["ping"].input_schema == _schema_for(PingInput) and result_of(pong) == {"pong": "hello"}


def test_browse_tools_shows_every_group_with_its_tools(token):
    _, plaintext = token
    browsed = result_of(call(plaintext, "browse_tools", {"groups": ["contacts"]}))
    assert "contacts.update" in browsed["contacts"]


# --- calls ----------------------------------------------------------------------------------------------------------


def test_a_read_runs_in_the_tokens_workspace(token, dana):
    _, plaintext = token
    assert [c["name"] for c in result_of(call(plaintext, "use_tool", {"name": "contacts.list"}))["items"]] == [
        "Dana Whitfield"]


def test_another_workspaces_contact_is_not_found(token, other_org):
    _, plaintext = token
    theirs = ContactFactory(organization=other_org, name="Their client")
    called = call(plaintext, "use_tool", {"name": "contacts.read", "input": {"contactId": str(theirs.id)}})
    assert result_of(called)["error"] == "not_found" and called.is_error


def test_bad_input_comes_back_in_band_naming_the_field(token):
    _, plaintext = token
    called = call(plaintext, "use_tool", {"name": "contacts.create", "input": {"nmae": "Priya"}})
    assert result_of(called)["error"] == "bad_input" and "nmae" in result_of(called)["message"]


def test_a_checked_action_is_not_done_yet(token, dana):
    _, plaintext = token
    called = call(plaintext, "use_tool", {"name": "contacts.update",
                                          "input": {"contactId": str(dana.id), "name": "Dana W."}})
    assert "not_done_yet" in result_of(called) and not called.is_error


def test_a_note_on_a_contact_never_unlocks_a_checked_rewrite_of_it(token, dana):
    """Issue 10, finding 1, as it was seen over MCP: the update asks, a note goes on the same contact (no yes
    needed), and the same update must still ask; the note made nothing that this work may now change freely."""
    _, plaintext = token
    update = {"name": "contacts.update",
              "input": {"contactId": str(dana.id), "emails": ["dana@juniper-billing.test"]}}
    first = result_of(call(plaintext, "use_tool", update))
    note = {"name": "contacts.note", "input": {"contactId": str(dana.id), "text": "Asked about signage."}}
    noted = result_of(call(plaintext, "use_tool", note))
    again = result_of(call(plaintext, "use_tool", update))
    dana.refresh_from_db()
    assert ("not_done_yet" in first, "error" in noted, "not_done_yet" in again) == (True, False, True)
    assert [e.email for e in dana.emails.all()] == ["dana@juniperdental.test"]


def test_the_legacy_handshake_works_too(token, dana):
    _, plaintext = token
    called = call(plaintext, "use_tool", {"name": "contacts.list"}, mode="legacy")
    assert result_of(called)["total"] == 1


# --- answers --------------------------------------------------------------------------------------------------------


def _handed_and_answered(plaintext, writer, text="£4,200 for the logo"):
    call(plaintext, "hand_off", {"agent": "Proposal writer", "task": "Quote Juniper Dental's logo"})
    answer_work(Work.objects.select_related("conversation", "agent", "requester").get(agent=writer), text)


def test_an_answer_comes_with_the_next_call(token, writer):
    _, plaintext = token
    _handed_and_answered(plaintext, writer)
    called = call(plaintext, "skills", {"action": "list"})
    assert "[Answer from Proposal writer] £4,200 for the logo" in called.content[1].text


def test_an_answer_comes_only_once(token, writer):
    _, plaintext = token
    _handed_and_answered(plaintext, writer)
    call(plaintext, "skills", {"action": "list"})
    assert len(call(plaintext, "skills", {"action": "list"}).content) == 1


def read_resource(plaintext, uri):
    async def go():
        async with connected(plaintext, app=asgi_app()) as client:
            return (await client.read_resource(uri)).contents[0].text

    return run(go)


def test_the_answers_resource_lists_answers_new_until_given(token, writer):
    _, plaintext = token
    _handed_and_answered(plaintext, writer)
    first = json.loads(read_resource(plaintext, ANSWERS_URI))["answers"]
    again = json.loads(read_resource(plaintext, ANSWERS_URI))["answers"]
    assert [(a["from"], a["new"]) for a in first] == [("Proposal writer", True)] and again[0]["new"] is False


def test_the_instructions_resource_says_who_the_app_works_as(token):
    _, plaintext = token
    assert read_resource(plaintext, INSTRUCTIONS_URI).startswith("You are Client desk, one of Sam Rivera's")


def test_the_servers_instructions_are_the_tokens_agents(token):
    _, plaintext = token

    async def go():
        async with connected(plaintext, app=asgi_app()) as client:
            return client.instructions

    assert "You are Client desk" in run(go)


def test_an_unknown_resource_is_an_error_naming_the_ones_there_are(token):
    _, plaintext = token

    async def go():
        async with connected(plaintext, app=asgi_app()) as client:
            try:
                await client.read_resource("roadstar://nothing")
            except MCPError as error:
                return error.error.message

    assert ANSWERS_URI in run(go)


# --- sign-in, hosts, and the rest of the app ----------------------------------------------------------------------


def test_no_token_is_401_pointing_to_the_metadata():
    reply = post("/mcp")
    assert reply.status_code == 401
    assert "/.well-known/oauth-protected-resource/mcp" in reply.headers["www-authenticate"]


def test_an_unknown_token_is_401(token):
    assert post("/mcp", headers={"Authorization": "Bearer rsm_not-a-token"}).status_code == 401


def test_a_revoked_token_is_401(org, token):
    row, plaintext = token
    services.mcp_token_revoke(org=org, token_id=row.id)
    assert post("/mcp", headers={"Authorization": f"Bearer {plaintext}"}).status_code == 401


def test_a_live_token_is_let_in(token):
    _, plaintext = token
    assert post("/mcp", headers={"Authorization": f"Bearer {plaintext}"}).status_code == 200


def test_each_event_loop_starts_its_own_session_manager_without_a_lifespan(token):
    # Each post runs on a new event loop, and nothing sends a lifespan: a 200 means that loop's manager runs
    # (without it the SDK answers 500, "Task group is not initialized").
    _, plaintext = token
    assert [post("/mcp", headers={"Authorization": f"Bearer {plaintext}"}).status_code for _ in range(2)] == [200, 200]


def test_a_host_in_allowed_hosts_is_served(token, settings):
    _, plaintext = token
    settings.ALLOWED_HOSTS = ["studio.example.com"]
    reply = post("/mcp", headers={"Authorization": f"Bearer {plaintext}"}, base="https://studio.example.com")
    assert reply.status_code == 200


def test_a_host_not_in_allowed_hosts_is_refused(token):
    _, plaintext = token
    reply = post("/mcp", headers={"Authorization": f"Bearer {plaintext}"}, base="http://evil.example")
    assert reply.status_code == 421


def test_the_protected_resource_metadata_names_the_endpoint():
    reply = get("/.well-known/oauth-protected-resource/mcp")
    assert reply.status_code == 200 and reply.json()["resource"].endswith("/mcp")


def test_everything_else_is_still_django():
    assert get("/login/").status_code == 200
