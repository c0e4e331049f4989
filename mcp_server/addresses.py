"""Where the MCP server is reached, and how its async handlers reach the database: what the server and its OAuth
provider both need, so neither imports the other for it."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections

MCP_PATH = "/mcp"


def public_url() -> str:
    """Roadstar's own address as apps reach it (ROADSTAR_URL), such as https://studio.example.com."""
    url = settings.ROADSTAR_URL or "http://127.0.0.1:8000"
    return url.rstrip("/")


def mcp_url(request=None) -> str:
    """The MCP server's address: ROADSTAR_URL's when set, else the address this request came to (the host and
    port the owner's browser reached), so the page shows what an app on this network would connect to."""
    if settings.ROADSTAR_URL or request is None:
        return public_url() + MCP_PATH
    return request.build_absolute_uri("/").rstrip("/") + MCP_PATH


# --- the database from async code -------------------------------------------------------------------------------


def _in_thread(fn):
    def call(*args):
        close_old_connections()
        try:
            return fn(*args)
        finally:
            # A pool thread keeps nothing open between calls, as a Django request keeps nothing after it.
            connections.close_all()

    return call


async def in_worker(fn, *args):
    """Run ORM code in a worker thread: the MCP handlers run on the event loop, where Django forbids it."""
    return await sync_to_async(_in_thread(fn), thread_sensitive=False)(*args)
