"""Fixtures for the MCP server: tokens of Client desk's in Fernhill Studio, and an MCP client over HTTP.

The server's handlers run in worker threads with their own database connections, so every test that calls
the server over HTTP is transactional (`django_db(transaction=True)`): what the test wrote must be committed
for the server to see it.
"""

from __future__ import annotations

import contextlib

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_server.services import mcp_token_make
from tests.factories import AgentFactory, ContactFactory

BASE = "http://testserver"


@pytest.fixture
def desk(org):
    return AgentFactory(organization=org, name="Client desk", job="Answers new and current clients")


@pytest.fixture
def writer(org):
    return AgentFactory(organization=org, name="Proposal writer", job="Prices and writes proposals")


@pytest.fixture
def token(org, desk):
    """A connection token of Client desk's: (its row, the token itself)."""
    return mcp_token_make(org=org, agent=desk, name="Claude on Sam's laptop")


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


def asgi_app():
    from roadstar.asgi import application

    return application


@contextlib.asynccontextmanager
async def connected(plaintext: str | None, *, url: str = BASE, app=None, mode: str = "auto"):
    """An MCP client (the SDK's own) over streamable HTTP, signed in with `plaintext` as a bearer token.

    Without `app` it goes over the network to `url`; with one, through httpx's ASGI transport in this process.
    """
    headers = {"Authorization": f"Bearer {plaintext}"} if plaintext else {}
    transport = httpx2.ASGITransport(app=app) if app is not None else None
    async with httpx2.AsyncClient(
        transport=transport, base_url=url, headers=headers, timeout=httpx2.Timeout(30.0, read=60.0)
    ) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client:
            yield client


def run(fn, *args):
    """Run an async function to completion from a sync test (the test itself keeps using the ORM)."""
    return anyio.run(fn, *args)
