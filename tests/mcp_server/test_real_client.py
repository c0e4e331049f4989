"""A real MCP client against the running server: the `mcp` SDK's own streamable-HTTP client, over TCP, to
roadstar.asgi.application served by uvicorn on 127.0.0.1 in a thread.

uvicorn runs with `lifespan="off"`, as daphne serves Roadstar (daphne sends no lifespan): the MCP session
manager must start on the first request. The server's threads use the database, so these tests commit.
"""

import json
import socket
import threading
import time

import httpx2
import pytest
import uvicorn
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from agents.models import Message
from core.models import Change
from mcp_server import services
from records.models import Contact
from tests.factories import ContactFactory
from tests.mcp_server.conftest import connected, run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def live_url():
    from roadstar.asgi import application

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(application, lifespan="off", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn didn't start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)
    sock.close()


def result_of(called) -> dict:
    return json.loads(called.content[0].text)


def test_an_outside_app_works_as_its_agent(live_url, token, dana, writer):
    """Item 9: list the tools, then a read, a make and a checked action, and a hand-off, in one connection."""
    _, plaintext = token

    async def go():
        async with connected(plaintext, url=live_url) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            read = await client.call_tool("use_tool", {"name": "contacts.list", "input": {}})
            made = await client.call_tool("use_tool", {"name": "contacts.create", "input": {"name": "Priya Shah"}})
            checked = await client.call_tool("use_tool", {
                "name": "contacts.update", "input": {"contactId": str(dana.id), "name": "Dana W."}})
            handed = await client.call_tool("hand_off", {"agent": "Proposal writer", "task": "Quote Juniper's logo"})
            return names, read, made, checked, handed

    names, read, made, checked, handed = run(go)
    assert names == ["hand_off", "remember", "browse_tools", "find_tools", "use_tool", "skills"]
    assert [c["name"] for c in result_of(read)["items"]] == ["Dana Whitfield"]
    assert Contact.objects.get(id=result_of(made)["id"]).name == "Priya Shah"
    assert "not_done_yet" in result_of(checked) and Contact.objects.get(id=dana.id).name == "Dana Whitfield"
    assert result_of(handed) == {"handed": "Proposal writer", "answer": "comes back to you"}


def test_the_make_is_on_home_in_the_agents_name(live_url, token):
    _, plaintext = token

    async def go():
        async with connected(plaintext, url=live_url) as client:
            await client.call_tool("use_tool", {"name": "contacts.create", "input": {"name": "Priya Shah"}})

    run(go)
    change = Change.objects.get(tool="contacts.create")
    assert (change.actor_name, change.sentence, change.listing) == (
        "Client desk", "added Priya Shah to Contacts", "home")


def test_the_hand_off_reaches_the_other_agents_chat(live_url, token, writer):
    _, plaintext = token

    async def go():
        async with connected(plaintext, url=live_url) as client:
            await client.call_tool("hand_off", {"agent": "Proposal writer", "task": "Quote Juniper's logo"})

    run(go)
    packet = Message.objects.get(conversation__agent=writer, role="handoff")
    assert packet.data["task"] == "Quote Juniper's logo" and packet.data["from"] == "Client desk"


def test_a_token_of_one_workspace_cant_read_anothers_contact(live_url, token, other_org):
    _, plaintext = token
    theirs = ContactFactory(organization=other_org, name="Their client")

    async def go():
        async with connected(plaintext, url=live_url) as client:
            return await client.call_tool("use_tool", {"name": "contacts.read", "input": {"contactId": str(theirs.id)}})

    called = run(go)
    assert result_of(called)["error"] == "not_found" and "Their client" not in called.content[0].text


def test_a_revoked_token_gets_401(live_url, org, token):
    row, plaintext = token
    services.mcp_token_revoke(org=org, token_id=row.id)

    async def go():
        async with httpx2.AsyncClient(base_url=live_url) as http:
            return await http.post("/mcp", headers={
                "Authorization": f"Bearer {plaintext}", "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})

    assert run(go).status_code == 401


def test_the_sdk_client_is_turned_away_with_a_revoked_token(live_url, org, token):
    row, plaintext = token
    services.mcp_token_revoke(org=org, token_id=row.id)
    statuses = []

    async def record(response):
        statuses.append(response.status_code)

    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {plaintext}"},
                                      event_hooks={"response": [record]}) as http:
            async with Client(streamable_http_client(f"{live_url}/mcp", http_client=http)) as client:
                await client.list_tools()

    # The SDK reports "Server returned an error response" as an error type of its version; the statuses are the check.
    with pytest.raises(Exception):  # noqa: B017
        run(go)
    assert statuses and set(statuses) == {401}


def test_a_handshake_era_session_works_over_http(live_url, token, dana):
    """The SDK's ClientSession with the initialize handshake, as a pre-2026 app connects."""
    _, plaintext = token

    async def go():
        headers = {"Authorization": f"Bearer {plaintext}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=60.0)) as http:
            async with streamable_http_client(f"{live_url}/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    initialized = await session.initialize()
                    called = await session.call_tool("use_tool", {"name": "contacts.list", "input": {}})
                    return initialized, called

    initialized, called = run(go)
    assert initialized.server_info.name == "roadstar" and result_of(called)["total"] == 1
    assert initialized.instructions.startswith("You are Client desk")
