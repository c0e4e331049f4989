"""Which URLs Roadstar's server may fetch for an agent or an owner (`web.read`, research's feeds): server-side
request forgery refused.

An agent's URL comes from what it read (a page, an email), so it is hostile by default: a link to the cloud's
metadata service, the database on the private network or Roadstar's own admin on loopback would otherwise be read
with the server's network position. So a URL is refused unless it is http(s), on a port of PUBLIC_PORTS, without
credentials, and every address its host resolves to is a public one. Hosts written as addresses in any of the
forms a resolver accepts (decimal `2130706433`, octal `0177.0.0.1`, hex, short `127.1`, IPv4-mapped IPv6) are read
as the address they are. The check runs on the first URL and again on every redirect, and the fetch connects to
the very address that was checked (`fetch.py`), so a DNS answer that changes between check and connect
(rebinding) cannot slip through.

`allowing_for_tests` lifts the refusal for the given addresses only under the test settings, so the suite can read
a local fake server; nothing in the product calls it, and outside the tests it refuses to run.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from core.errors import ToolError

PUBLIC_PORTS = frozenset({80, 443, 8080, 8443})
MAX_URL_LENGTH = 2000

# Cloud metadata services answer instance credentials to whoever asks from the machine; some live on addresses that
# are otherwise public (Azure's wireserver), so they are named here whatever their range.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, DigitalOcean, OpenStack
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.169.123",  # AWS time sync
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure wireserver
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS over IPv6
    )
)
CGNAT = ipaddress.ip_network("100.64.0.0/10")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

_allowed_for_tests: frozenset[IPAddress] = frozenset()


@dataclass(frozen=True)
class Target:
    """A URL that passed the check, with the address the fetch must connect to."""

    url: str
    scheme: str
    host: str  # as written in the URL, for the Host header and TLS's server name
    port: int
    address: str  # the checked address to connect to


def refused(url: str, why: str, *, field: str = "urls") -> ToolError:
    return ToolError("bad_input", f"{field}: {url} is refused: {why}. Only public web pages can be read.")


def why_refused(address: IPAddress) -> str | None:
    """Why an address may not be fetched from, in words; None for a public address."""
    if address in _allowed_for_tests:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = why_refused(embedded)
            return f"{address} carries the IPv4 address {embedded}, {inner}" if inner else None
    if address in METADATA_ADDRESSES:
        return f"{address} is a cloud metadata address"
    if address.is_unspecified:
        return f"{address} is the unspecified address"
    if address.is_loopback:
        return f"{address} is a loopback address (this server itself)"
    if address.is_multicast:
        return f"{address} is a multicast address"
    if address.is_link_local:
        return f"{address} is a link-local address"
    if isinstance(address, ipaddress.IPv4Address) and address in CGNAT:
        return f"{address} is in the shared carrier-grade NAT range (100.64.0.0/10)"
    if address.is_reserved:
        return f"{address} is a reserved address, not on the public internet"
    if address.is_private:
        return f"{address} is a private network address"
    if not address.is_global:
        return f"{address} is a reserved address, not on the public internet"
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches (mapped, NAT64, 6to4, IPv4-compatible)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in NAT64 or address in NAT64_LOCAL or (address in IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def literal_address(host: str) -> IPAddress | None:
    """The address a host written as one stands for, in every form the system's resolver would take."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        pass
    # inet_aton reads what getaddrinfo would: 2130706433, 0177.0.0.1, 0x7f.1, 127.1. Only hosts made of digits,
    # dots and hex marks are tried, so a name such as "cafe" is never read as hex.
    if bare and all(c in "0123456789abcdefxABCDEFX." for c in bare) and any(c.isdigit() for c in bare):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(bare))
        except (OSError, ValueError):
            return None
    return None


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    # A stream socket's address is (host, port[, ...]): its host is text.
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# Tests replace this to answer names without DNS; the product always uses the system's resolver.
resolver: Resolver = system_resolver


def check_url(url: str, *, field: str = "urls") -> Target:
    """The URL's scheme, port, credentials and host, and the host's addresses after DNS resolution: a `Target` to
    connect to, or `bad_input` naming the URL and why. A name that doesn't resolve is `not_found`."""
    if len(url) > MAX_URL_LENGTH:
        raise refused(url[:80] + "…", f"it is longer than {MAX_URL_LENGTH} characters", field=field)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise refused(url, f"it is not a valid link ({error})", field=field) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise refused(url, f"only http and https links can be read, not {scheme or 'a link without a scheme'}",
                      field=field)
    if parts.username is not None or parts.password is not None:
        raise refused(url, "it carries a user name or password", field=field)
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise refused(url, "it names no host", field=field)
    if port is None:
        port = 443 if scheme == "https" else 80
    literal = literal_address(host)
    if literal is not None:
        why = why_refused(literal)
        if why:
            raise refused(url, why, field=field)
        _check_port(url, port, [literal], field)
        return Target(url=url, scheme=scheme, host=host, port=port, address=str(literal))
    if host.lower() == "localhost" or host.lower().endswith((".localhost", ".local", ".internal")):
        raise refused(url, f"{host} is a local name, not a public one", field=field)
    try:
        found = resolver(host, port)
    except (OSError, UnicodeError):
        found = []
    if not found:
        raise ToolError("not_found", f"{url}: no such host ({host} has no address).")
    addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in found]
    for address in addresses:
        # One private address among public ones is refused too: which one a connection picks is not ours to say.
        why = why_refused(address)
        if why:
            raise refused(url, f"{host} resolves to {why}", field=field)
    _check_port(url, port, addresses, field)
    return Target(url=url, scheme=scheme, host=host, port=port, address=str(addresses[0]))


def _check_port(url: str, port: int, addresses: list[IPAddress], field: str) -> None:
    # Other ports are where databases, caches and admin consoles listen. The tests' fake server (on a port of the
    # system's choosing) is reached through the allow-list only.
    if port not in PUBLIC_PORTS and not all(a in _allowed_for_tests for a in addresses):
        ports = ", ".join(map(str, sorted(PUBLIC_PORTS)))
        raise refused(url, f"port {port} is not one of the web's ports ({ports})", field=field)


@contextmanager
def allowing_for_tests(*addresses: str) -> Iterator[None]:
    """Let the suite read a local fake server on these addresses (any port). Refused outside the test settings."""
    global _allowed_for_tests
    if getattr(settings, "ROADSTAR_ENV", "") != "test":
        raise RuntimeError("allowing_for_tests is for the test suite only")
    before = _allowed_for_tests
    _allowed_for_tests = before | {ipaddress.ip_address(a) for a in addresses}
    try:
        yield
    finally:
        _allowed_for_tests = before


def model_address_refused(url: str) -> str | None:
    """Why the owner may not point the agents (and the Settings page's Test) at this model address, in the owner's
    words; None when it may be used. Where the server doesn't host its own model server (settings
    ROADSTAR_LOCAL_MODELS off, production's default), a host on this machine or its private network is refused, as
    a name or after DNS resolution, so Test can't be used to find out what answers inside the server's network. Any
    port is allowed (model servers listen on their own). A name that doesn't resolve is left to the call itself
    (it then says nothing answered)."""
    if settings.ROADSTAR_LOCAL_MODELS:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None  # the address's own check says what is wrong with it
    host = (parts.hostname or "").rstrip(".")
    if not host:
        return None
    local = "This server takes only a public model address (set by whoever runs it)"
    literal = literal_address(host)
    if literal is None and (host.lower() == "localhost" or host.lower().endswith((".localhost", ".local",
                                                                                   ".internal"))):
        return f"{local}: {host} is a name on this machine or its own network."
    try:
        found = [literal] if literal is not None else [
            ipaddress.ip_address(a.split("%", 1)[0]) for a in resolver(host, port)]
    except (OSError, UnicodeError, ValueError):
        return None
    for address in found:
        why = why_refused(address)
        if why:
            return f"{local}: {why}." if literal is not None else (
                f"{local}: {host} resolves to {address}, an address on this machine or a private network.")
    return None
