"""The `roadstar` MCP server: an outside AI app or a Mac program connects as one of the owner's agents.

What it holds is read from the registries on every list, never written out here: exactly the agent tools whose
places include OUTSIDE (browse_tools, find_tools, use_tool, hand_off, remember, skills today), each with the
registry's own description and JSON Schema. Every tool group is reached through browse/find/use, so a new group
(or a new agent tool offered OUTSIDE) reaches apps with no change here. Calls run through the same handlers and
the same `use_tool` pipeline as a thread's, in an OutsideSession: the same check, budget and Home records.

Built on the SDK's low-level `Server`, not `MCPServer`: `MCPServer.add_tool` derives each tool's schema from a
Python signature and validates calls against that, while these tools' schemas are the registry's pydantic
models, sent exactly as a thread's model sees them, and their inputs are validated by the handlers so a wrong
input comes back in-band as `bad_input` naming the field, as in a thread. The SDK's docs send exact schemas to
the low-level server; it takes the same streamable HTTP, bearer-token and transport-security settings.

Answers to the app's hand-offs arrive as messages in its OUTSIDE conversation. They reach the app two ways:
with the result of its next tool call (a second text block, each answer given once), and at any time as the
resource `roadstar://answers` (the newest answers, each marked new until given).

Sign-in: `Authorization: Bearer <token>` with an access token an app got by signing in through Roadstar (OAuth:
mcp_server.oauth, the SDK's authorization-server routes served beside /mcp, the owner's consent page in
mcp_server.views), or with a connection token the owner made (mcp_server.services); an unknown, expired or
revoked token, or one issued for another resource, gets 401 from the SDK's bearer middleware before anything is
parsed.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette

from agents.runtime.agent_tools import OUTSIDE, tools_for_place
from core.timefmt import iso
from mcp_server import oauth, selectors, services
from mcp_server.instructions import outside_instructions
from mcp_server.models import McpToken
from mcp_server.session import OutsideSession
from tools.catalog import browse_description
from tools.registry import ToolResult

logger = logging.getLogger(__name__)

SERVER_NAME = "roadstar"
MCP_PATH = "/mcp"
ANSWERS_URI = "roadstar://answers"
INSTRUCTIONS_URI = "roadstar://instructions"

GENERIC_INSTRUCTIONS = (
    "Roadstar: a small business's records and its owner's AI agents. You work here as one of the owner's agents; "
    f"read {INSTRUCTIONS_URI} for who you are and how you work."
)

# Hints for the app's interface; the check decides what runs whatever they say.
ANNOTATIONS = {
    "browse_tools": types.ToolAnnotations(title="Browse tool groups", read_only_hint=True),
    "find_tools": types.ToolAnnotations(title="Load tools", read_only_hint=True),
    "use_tool": types.ToolAnnotations(title="Run a Roadstar tool", read_only_hint=False, open_world_hint=True),
    "hand_off": types.ToolAnnotations(title="Hand work to another agent", read_only_hint=False),
    "remember": types.ToolAnnotations(title="Keep a note", read_only_hint=False),
    "skills": types.ToolAnnotations(title="Skills", read_only_hint=False),
}


# --- where it is served ---------------------------------------------------------------------------------------


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


def transport_security() -> TransportSecuritySettings:
    """DNS-rebinding protection from Django's own ALLOWED_HOSTS (and CSRF_TRUSTED_ORIGINS for browser apps).

    `*` turns the host check off, as it does for Django. The SDK matches hosts exactly (any port allowed), so a
    Django subdomain pattern `.example.com` allows example.com itself here; list other subdomains by name.
    """
    hosts = [h for h in settings.ALLOWED_HOSTS if h]
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    public = urlsplit(public_url())
    names = [h.lstrip(".") for h in hosts]
    if public.hostname and public.hostname not in names:
        names.append(public.hostname)
    allowed_hosts, origins = [], list(settings.CSRF_TRUSTED_ORIGINS)
    for name in dict.fromkeys(names):
        host = f"[{name}]" if ":" in name and not name.startswith("[") else name  # an IPv6 literal
        allowed_hosts += [host, f"{host}:*"]
        origins += [f"{scheme}://{host}{port}" for scheme in ("http", "https") for port in ("", ":*")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts, allowed_origins=list(dict.fromkeys(origins))
    )


def auth_settings() -> AuthSettings:
    # Roadstar is its own authorization server (mcp_server.oauth): apps register themselves (RFC 7591), the owner
    # consents, and every token is bound to this resource, /mcp (RFC 8707), which the SDK's bearer middleware
    # then checks (validate_token_resource). A connection token made on the page is this server's by making.
    # Validated from strings, as the SDK takes them: so a path-less issuer keeps its exact form, with no trailing
    # slash (RFC 8414 compares issuers as strings), which an AnyHttpUrl built here would add.
    return AuthSettings.model_validate({
        "issuer_url": public_url(), "resource_server_url": mcp_url(), "validate_token_resource": True,
        "client_registration_options": {"enabled": True}, "revocation_options": {"enabled": True},
    })


def signs_in_apps() -> bool:
    """Whether outside apps can sign in through Roadstar here: OAuth wants its issuer on https (RFC 8414), or on
    this machine for development. On a plain-http address elsewhere only connection tokens work, and /mcp still
    serves them (the SDK would refuse to build its authorization server's routes, and /mcp with them)."""
    url = urlsplit(public_url())
    signs_in = url.scheme == "https" or url.hostname in ("localhost", "127.0.0.1", "::1")
    if not signs_in:
        logger.warning("ROADSTAR_URL %s is not https: outside apps can connect with tokens only", public_url())
    return signs_in


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


# --- sign-in ----------------------------------------------------------------------------------------------------


def _sign_in(plaintext: str) -> AccessToken | None:
    # An app that signed in through Roadstar (OAuth) holds an access token of its connection; one the owner
    # pasted holds a connection token. Either way the request works as the connection (McpToken) below.
    signed = oauth.oauth_access_sign_in(plaintext)
    token: McpToken | None
    if signed is not None:
        token, access = signed
        token_value, resource, expires = access.token_hash, access.resource, int(access.expires_at.timestamp())
    else:
        token = services.mcp_token_sign_in(plaintext)
        if token is None:
            return None
        token_value, resource, expires = token.token_hash, mcp_url(), None
    return AccessToken(
        token=token_value,  # the hash: the token itself is kept nowhere, not even here
        client_id=str(token.id),
        scopes=[],
        expires_at=expires,
        resource=resource,
        subject=str(token.agent_id),
        claims={
            "organization": str(token.organization_id),
            "agent": token.agent.name,
            # Read by RoadstarServer.instructions, which can't reach the database from the event loop.
            "instructions": outside_instructions(token.agent),
        },
    )


class McpTokenVerifier:
    """The SDK's TokenVerifier: a connection token of an active McpToken, or nothing (401)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        return await in_worker(_sign_in, token)


def _signed_in() -> str:
    access = get_access_token()
    if access is None:
        raise MCPError(
            code=types.INVALID_REQUEST, message="Sign in with a connection token: Authorization: Bearer <token>."
        )
    return access.client_id


def _token(token_id: str) -> McpToken | None:
    return (
        McpToken.objects.select_related("agent", "organization", "conversation")
        .filter(id=token_id, revoked_at__isnull=True)
        .first()
    )


REVOKED = {
    "error": "forbidden",
    "message": "This connection token was revoked; nothing ran. Ask the owner for a new one.",
}


# --- tools --------------------------------------------------------------------------------------------------------


def outside_tools(place: str = OUTSIDE, org=None) -> list[types.Tool]:
    """The agent tools held OUTSIDE (and, for an agent on the Mac, its messages and reply), as declared."""
    listed = []
    for tool in tools_for_place(place):
        spec = tool.spec()
        # browse_tools' description lists the groups, so it is built when it is read, as a thread's prompt does.
        # Given the token's workspace, an optional group it has off is left out, as in a thread's prompt.
        description = browse_description(org) if tool.name == "browse_tools" else spec["description"]
        listed.append(types.Tool(
            name=tool.name, description=description, input_schema=spec["parameters"],
            annotations=ANNOTATIONS.get(tool.name),
        ))
    return listed


def _call(token_id: str, name: str, arguments: dict) -> tuple[ToolResult, list[str]]:
    token = _token(token_id)
    if token is None:
        return REVOKED, []
    result = OutsideSession(token).run(name, arguments)
    answers = services.answers_claim(token=token)
    return result, [answer.text for answer in answers]


def answers_note(texts: list[str]) -> str:
    return "Answers that came back to you since your last Roadstar call:\n" + "\n".join(f"- {t}" for t in texts)


def tool_result(result: ToolResult, answers: list[str]) -> types.CallToolResult:
    """The result as JSON text, as a thread's model reads it, then any answers that arrived, given once."""
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))]
    if answers:
        content.append(types.TextContent(type="text", text=answers_note(answers)))
    failed = isinstance(result, dict) and "error" in result
    return types.CallToolResult(content=content, is_error=failed)


def _tools_listed(token_id: str) -> list[types.Tool]:
    token = _token(token_id)
    if token is None:
        return outside_tools(OUTSIDE)
    return outside_tools(OutsideSession(token).place, token.organization)


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=await in_worker(_tools_listed, _signed_in()))


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    token_id = _signed_in()
    result, answers = await in_worker(_call, token_id, params.name, params.arguments or {})
    return tool_result(result, answers)


# --- resources ----------------------------------------------------------------------------------------------------

RESOURCES = [
    types.Resource(
        uri=ANSWERS_URI, name="answers", title="Answers to work you handed off",
        description="The newest answers that came back to you, oldest first; `new` until you were given one.",
        mime_type="application/json",
    ),
    types.Resource(
        uri=INSTRUCTIONS_URI, name="instructions", title="Who you are and how you work",
        description="Your name, job, the other agents, your notes and skills, and how Roadstar's tools work.",
        mime_type="text/markdown",
    ),
]


def _read(token_id: str, uri: str) -> str | None:
    token = _token(token_id)
    if token is None:
        return json.dumps(REVOKED)
    if uri == INSTRUCTIONS_URI:
        return outside_instructions(token.agent)
    if uri == ANSWERS_URI:
        new = {answer.seq for answer in services.answers_claim(token=token)}
        return json.dumps({"answers": [
            {"id": m.seq, "from": (m.data or {}).get("from", ""), "at": iso(m.created_at), "text": m.text,
             "new": m.seq in new}
            for m in selectors.answers_of(token=token)
        ]}, ensure_ascii=False)
    return None


async def list_resources(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=RESOURCES)


async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    token_id = _signed_in()
    uri = str(params.uri)
    text = await in_worker(_read, token_id, uri)
    if text is None:
        raise MCPError(
            code=types.INVALID_PARAMS, message=f"No resource {uri}; there are {ANSWERS_URI} and {INSTRUCTIONS_URI}."
        )
    mime = {r.uri: r.mime_type for r in RESOURCES}[uri]
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)])


# --- the server -------------------------------------------------------------------------------------------------


class RoadstarServer(Server):
    """The low-level server, whose instructions are the signed-in agent's own (who it is, its job, the rules)."""

    @property
    def instructions(self) -> str | None:
        access = get_access_token()
        claims = access.claims if access is not None else None
        return (claims or {}).get("instructions") or self._generic_instructions

    @instructions.setter
    def instructions(self, value: str | None) -> None:
        self._generic_instructions = value


def build_server() -> RoadstarServer:
    return RoadstarServer(
        SERVER_NAME, title="Roadstar", instructions=GENERIC_INSTRUCTIONS,
        on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_read_resource=read_resource,
    )


def build_app() -> tuple[Starlette, RoadstarServer]:
    """The streamable-HTTP app at /mcp (and the protected-resource metadata), and its server.

    Stateless: each request stands alone, since everything an app's work needs is in the database (its token,
    conversation and answers), so any web process can serve any request and nothing is lost on a restart.
    """
    # Late: the provider imports this module (in_worker, the addresses).
    from mcp_server.oauth_provider import RoadstarAuthProvider

    server = build_server()
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, transport_security=transport_security(),
        auth=auth_settings(), token_verifier=McpTokenVerifier(),
        auth_server_provider=RoadstarAuthProvider() if signs_in_apps() else None,
    )
    return app, server
