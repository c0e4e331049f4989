"""The MCP server at /mcp: outside AI apps and Mac programs connect as one of the owner's agents.

See server.py for what the server holds, session.py for how an app's calls run, and asgi.py for how /mcp sits
beside Django and Channels in the ASGI app.

The MCP server and sign-in through Roadstar
===========================================

- **MCP server** (`mcp_server/`, mounted at `/mcp` in `roadstar/asgi.py`): the mcp SDK's low-level server over
  streamable HTTP, stateless, fed by the same registries (browse/find/use, hand_off, remember, skills), so a new
  tool group reaches MCP with no change. A bearer token (`McpToken`, stored hashed) signs an app in as one of the
  owner's agents; its calls run in an `OutsideSession`, which shares `agents/runtime/host.py` with a turn. The
  owner's words never reach it, so checked actions ask. An agent set to run on the owner's Mac also holds `messages`
  and `reply`: Roadstar runs no turn for its chat; the program there reads what waits (the owner's messages,
  hand-offs, routine runs) and its reply answers whoever sent each.
- **Outside apps sign in through Roadstar** (`mcp_server/oauth.py`, `oauth_provider.py`, the consent page in
  `mcp_server/views.py`; issue 28): Roadstar is the authorization server the MCP spec describes. The protocol is the
  MCP SDK's own (`mcp.server.auth`: `create_auth_routes` serves the RFC 8414 metadata, `/authorize`, `/token`,
  `/register` (RFC 7591) and `/revoke`, and its handlers check PKCE S256, the redirect URI's exact match and the
  client's secret), handed our `OAuthAuthorizationServerProvider`, which keeps what they decide in the database from
  a worker thread. Chosen over authlib or oauthlib because the SDK already serves /mcp and its 401 and
  protected-resource metadata, its handlers are the ones the MCP clients are tested against, and they refuse what
  the spec refuses (plain PKCE, an unregistered redirect URI, a wrong verifier) before our code runs; ours is only
  the policy: redirect URIs https or loopback, an authorization request waits (`McpOAuthRequest`, its key hashed)
  for the signed-in owner's consent page, approval makes the app's connection (an `McpToken` with `client` set, its
  own OUTSIDE conversation, the agent chosen) and a single-use code; access tokens an hour, refresh tokens rotated,
  both bound to the resource (`/mcp`: the SDK's bearer middleware checks `validate_token_resource`), SHA-256 only,
  each the workspace's; a code or refresh token used twice revokes the connection's tokens. Disconnect revokes the
  connection, which every token's sign-in reads.
"""
