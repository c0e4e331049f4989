"""An outside app signs in through Roadstar, the owner's consent given in Chromium: the MCP SDK's own OAuth client
(`OAuthClientProvider` over streamable HTTP) against the running stack (daphne serving roadstar.asgi).

Playwright's sync API owns the main thread, so the app runs in a thread of its own with its own event loop: its
redirect handler hands the authorize address to the browser, and its callback handler waits for where the owner's
answer sent the browser (the app's loopback redirect URI, which the browser's route catches: nothing listens
there). Then Disconnect, clicked on the page, stops the app's next request.
"""

from __future__ import annotations

import queue
import threading
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

CALLBACK = "http://127.0.0.1:53682/callback"


class Memory:
    def __init__(self):
        self.tokens = self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


def test_an_app_signs_in_with_the_owners_consent_in_chromium(signed_in, stack):
    page = signed_in
    to_browser: queue.Queue[str] = queue.Queue()
    from_browser: queue.Queue[str] = queue.Queue()
    storage, outcome = Memory(), {}

    def the_app():
        async def redirect(url: str) -> None:
            to_browser.put(url)

        async def callback() -> AuthorizationCodeResult:
            sent = await anyio.to_thread.run_sync(lambda: from_browser.get(timeout=60))
            query = parse_qs(urlsplit(sent).query)
            return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

        async def go():
            auth = OAuthClientProvider(
                server_url=f"{stack.url}/mcp", storage=storage, redirect_handler=redirect, callback_handler=callback,
                client_metadata=OAuthClientMetadata(
                    client_name="Desk helper", redirect_uris=[CALLBACK], response_types=["code"],
                    grant_types=["authorization_code", "refresh_token"], token_endpoint_auth_method="none",
                ),
            )
            async with httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30.0, read=60.0)) as http:
                async with Client(streamable_http_client(f"{stack.url}/mcp", http_client=http)) as client:
                    names = [t.name for t in (await client.list_tools()).tools]
                    listed = await client.call_tool("use_tool", {"name": "contacts.list", "input": {}})
            return names, listed

        try:
            outcome["result"] = anyio.run(go)
        except BaseException as error:  # noqa: BLE001  (reported by the test below)
            outcome["error"] = error
            to_browser.put("")

    thread = threading.Thread(target=the_app, daemon=True)
    thread.start()
    authorize = to_browser.get(timeout=60)
    assert authorize, f"the app failed before the owner was asked: {outcome.get('error')!r}"

    sent = []

    def caught(route):
        sent.append(route.request.url)
        route.fulfill(status=200, content_type="text/plain", body="Signed in. You can close this window.")

    page.route("http://127.0.0.1:53682/**", caught)
    page.goto(authorize)
    page.get_by_role("heading", name="Desk helper asks to work in Fernhill Studio").wait_for()
    assert "127.0.0.1:53682" in page.content()
    page.select_option("select[name=agent]", label="Client desk")
    page.get_by_role("button", name="Let it connect").click()
    page.wait_for_url("http://127.0.0.1:53682/**")
    from_browser.put(sent[0])
    thread.join(timeout=90)
    assert "error" not in outcome, repr(outcome.get("error"))
    names, listed = outcome["result"]
    assert names == ["hand_off", "remember", "browse_tools", "find_tools", "use_tool", "skills"]
    assert "Rosa Ortiz" in listed.content[0].text

    # The connections page lists it, with its agent; Disconnect stops it at once.
    page.goto("/connections/mcp/")
    line = page.locator("li.line", has_text="Desk helper")
    assert "works as Client desk" in line.inner_text() and "signed in through Roadstar" in line.inner_text()
    line.get_by_role("button", name="Disconnect").click()
    page.get_by_text("Desk helper can no longer connect.").wait_for()
    refused = httpx2.post(f"{stack.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={
        "Authorization": f"Bearer {storage.tokens.access_token}", "Accept": "application/json, text/event-stream"})
    assert refused.status_code == 401
