"""/mcp in the ASGI app: which paths it takes, and the hosts it accepts, from ALLOWED_HOSTS.

Serving without a lifespan is proven in test_http.py and test_real_client.py (uvicorn with lifespan off)."""

import pytest

from mcp_server.asgi import is_mcp_path
from mcp_server.server import auth_settings, transport_security


@pytest.mark.parametrize("path", ["/mcp", "/mcp/", "/.well-known/oauth-protected-resource/mcp"])
def test_the_mcp_paths_go_to_the_mcp_server(path):
    assert is_mcp_path(path)


@pytest.mark.parametrize("path", ["/", "/mcpx", "/connections/mcp/", "/admin/mcp"])
def test_other_paths_go_to_django(path):
    assert not is_mcp_path(path)


def test_any_port_of_an_allowed_host_is_allowed(settings):
    settings.ALLOWED_HOSTS = ["studio.example.com"]
    assert "studio.example.com:*" in transport_security().allowed_hosts


def test_a_wildcard_allowed_hosts_turns_the_host_check_off(settings):
    settings.ALLOWED_HOSTS = ["*"]
    assert transport_security().enable_dns_rebinding_protection is False


def test_browser_origins_of_the_allowed_hosts_are_allowed(settings):
    settings.ALLOWED_HOSTS = ["studio.example.com"]
    assert "https://studio.example.com" in transport_security().allowed_origins


def test_the_token_issuer_is_roadstars_address_exactly(settings):
    # Apps compare the issuer as a string (RFC 8414): a trailing slash added to it would not match.
    settings.ROADSTAR_URL = "https://studio.example.com"
    auth = auth_settings()
    assert (str(auth.issuer_url), str(auth.resource_server_url)) == (
        "https://studio.example.com", "https://studio.example.com/mcp",
    )
