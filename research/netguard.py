"""Server-side requests to addresses an owner gave (a feed's URL): never to this machine or its private network.

A feed URL is fetched by the worker, inside the server's network. Without a check, an owner (or an agent an owner's
mail talked into it) could make Roadstar read `http://127.0.0.1:…`, the database port, a router's admin page or the
cloud's metadata service (169.254.169.254) and show the answer back as stories. So every address the name
resolves to must be a public one, and every redirect is checked again the same way (`fetch` follows them itself).

What this doesn't cover: a name whose DNS answer changes between the check and the connection (rebinding). The
connection is made to the name again, so a hostile DNS server could still swap the answer in that instant.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from core import web_addresses
from core.network import network_call

MAX_REDIRECTS = 5
# Names that are the machine itself or a cloud's metadata service, whatever they resolve to here.
REFUSED_NAMES = frozenset({"localhost", "metadata.google.internal", "metadata", "instance-data"})


class AddressRefused(Exception):
    """The URL points at this machine, a private network or a metadata service: it was not requested."""


def _refused_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # The web group's address policy (core/web_addresses.py), so both refuse the same: loopback, private,
    # link-local, carrier-grade NAT, multicast, unspecified, reserved and cloud-metadata addresses, and IPv6 ones
    # that carry such an IPv4 address (mapped, NAT64, 6to4).
    return web_addresses.why_refused(ip) is not None


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to (a seam for tests, which give names without a DNS server)."""
    return sorted({info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def check_url(url: str) -> None:
    """Raise AddressRefused unless `url` is http(s) to a name or address that is public, as resolved now."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise AddressRefused("only http and https addresses are read")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise AddressRefused("the address has no host name")
    if parts.username or parts.password:
        raise AddressRefused("addresses with a user name or password in them are not read")
    if host in REFUSED_NAMES or host.endswith((".localhost", ".local", ".internal")):
        raise AddressRefused(f"{host} is this machine or its private network")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise AddressRefused("the address has a port that isn't a number") from exc
    literal = web_addresses.literal_address(host)  # 2130706433, 0177.0.0.1 and 127.1 are addresses too
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = resolve(host, port)
        except (socket.gaierror, UnicodeError) as error:
            raise AddressRefused(f"{host} could not be found") from error
    if not addresses:
        raise AddressRefused(f"{host} could not be found")
    for address in addresses:
        if _refused_ip(ipaddress.ip_address(address.split("%")[0])):
            raise AddressRefused(f"{host} is a private, local or reserved address ({address})")


class TooLarge(Exception):
    """The answer was longer than the caller takes."""


@dataclass
class Fetched:
    status: int
    headers: httpx.Headers
    body: bytes
    url: str


def fetch(client: httpx.Client, url: str, *, headers: dict | None = None, max_bytes: int = 5 * 1024 * 1024) -> Fetched:
    """GET `url` with `client`, checking it and every redirect's target before each request, reading at most
    `max_bytes` of the answer (TooLarge past that)."""
    for _ in range(MAX_REDIRECTS + 1):
        check_url(url)
        network_call(f"reading {url}")
        with client.stream("GET", url, headers=headers, follow_redirects=False) as response:
            if response.is_redirect and response.headers.get("location"):
                url = urljoin(str(response.url), response.headers["location"])
                continue
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise TooLarge(f"the answer is over {max_bytes // (1024 * 1024)} MB")
            return Fetched(response.status_code, response.headers, bytes(body), str(response.url))
    raise AddressRefused(f"more than {MAX_REDIRECTS} redirects")
