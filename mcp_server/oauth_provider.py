"""The MCP SDK's authorization-server provider protocol, over mcp_server.oauth.

The SDK's handlers (`mcp.server.auth.handlers`) parse and check the requests: the registration's metadata, the
authorize request (client known, redirect URI exactly one it registered, PKCE S256 only), the token request
(client authenticated, code's redirect URI and PKCE verifier matched, expiry). This provider keeps what they
decide, in the database, from a worker thread (the handlers run on the event loop, where Django forbids the
ORM). Tokens it hands the SDK carry their SHA-256 as `token`: the value itself is kept nowhere.
"""

from __future__ import annotations

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from mcp_server import oauth
from mcp_server.addresses import in_worker, mcp_url, public_url

CONSENT_PATH = "/connections/mcp/authorize/"


def _epoch(when) -> int:
    return int(when.timestamp())


def _client_info(found) -> OAuthClientInformationFull | None:
    if found is None:
        return None
    row, secret = found
    return OAuthClientInformationFull.model_validate({**row.metadata, "client_secret": secret})


def _token(issued: oauth.Issued | None) -> OAuthToken:
    if issued is None:
        raise TokenError(error="invalid_grant", error_description="This grant was already used.")
    return OAuthToken(
        access_token=issued.access_token, token_type="Bearer", expires_in=issued.expires_in,
        refresh_token=issued.refresh_token, scope=" ".join(issued.scopes) or None,
    )


class RoadstarAuthProvider:
    """OAuthAuthorizationServerProvider for outside apps signing in to Roadstar's /mcp."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return _client_info(await in_worker(oauth.oauth_client, client_id))

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        metadata = client_info.model_dump(mode="json", exclude={"client_secret"}, exclude_none=True)

        def register():
            return oauth.oauth_client_register(
                client_id=client_info.client_id or "", metadata=metadata, secret=client_info.client_secret
            )

        try:
            await in_worker(register)
        except oauth.RedirectUriRefused as refused:
            raise RegistrationError(error="invalid_redirect_uri", error_description=str(refused)) from refused

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        # RFC 8707: the token is for Roadstar's /mcp and nothing else. Asked for another resource, the app is
        # told so at its redirect URI (the SDK checked that URI is one it registered).
        resource = params.resource or mcp_url()
        if not oauth.same_resource(resource, mcp_url()):
            raise AuthorizeError(
                error="invalid_target", error_description=f"This server issues tokens for {mcp_url()} only."
            )

        def open_request():
            return oauth.oauth_request_open(
                client_id=client.client_id or "", state=params.state, scopes=params.scopes or [],
                code_challenge=params.code_challenge, redirect_uri=str(params.redirect_uri),
                redirect_uri_explicit=params.redirect_uri_provided_explicitly, resource=resource,
            )

        key = await in_worker(open_request)
        return f"{public_url()}{CONSENT_PATH}{key}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        row = await in_worker(lambda: oauth.oauth_code(client_id=client.client_id or "", code=authorization_code))
        if row is None:
            return None
        return AuthorizationCode(
            code=row.code_hash, scopes=row.scopes, expires_at=row.expires_at.timestamp(), client_id=row.client_id,
            code_challenge=row.code_challenge, redirect_uri=row.redirect_uri,
            redirect_uri_provided_explicitly=row.redirect_uri_explicit, resource=row.resource,
            subject=str(row.connection_id),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        return _token(await in_worker(lambda: oauth.oauth_code_exchange(code_hash=authorization_code.code)))

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        row = await in_worker(
            lambda: oauth.oauth_refresh(client_id=client.client_id or "", refresh_token=refresh_token)
        )
        if row is None:
            return None
        return RefreshToken(
            token=row.token_hash, client_id=row.client_id, scopes=row.scopes, expires_at=_epoch(row.expires_at),
            resource=row.resource, subject=str(row.connection_id),
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        return _token(
            await in_worker(lambda: oauth.oauth_refresh_exchange(token_hash_=refresh_token.token, scopes=scopes))
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        # Used by the revocation endpoint; /mcp's requests are signed in by server.McpTokenVerifier.
        row = await in_worker(lambda: oauth.oauth_access(plaintext=token))
        if row is None:
            return None
        return AccessToken(
            token=row.token_hash, client_id=row.client_id, scopes=row.scopes, expires_at=_epoch(row.expires_at),
            resource=row.resource, subject=str(row.connection_id),
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await in_worker(lambda: oauth.oauth_token_revoke(token_hash_=token.token, client_id=token.client_id))

    async def exchange_identity_assertion(self, client, params) -> OAuthToken:
        raise TokenError(error="unsupported_grant_type", error_description="Only authorization_code and "
                         "refresh_token are supported.")
