"""Server-side requests to addresses an owner gave (a feed's URL): never to this machine or its private network.

A feed URL is fetched by the worker, inside the server's network. Without a check, an owner (or an agent an owner's
mail talked into it) could make Roadstar read `http://127.0.0.1:…`, the database port, a router's admin page or the
cloud's metadata service (169.254.169.254) and show the answer back as stories. The check is the web group's
(`core/web_addresses.py`: http(s) on the web's ports, no credentials, every address the name resolves to a
public one, addresses in every form a resolver reads), run on the URL and again on every redirect, and each
connection goes to the very address that was checked (`integrations.web.fetch.pinned_client`), so a DNS answer that
changes between the check and the connection reaches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from core import web_addresses
from core.errors import ToolError
from core.network import network_call
from integrations.web.fetch import pinned_client

MAX_REDIRECTS = 5


class AddressRefused(Exception):
    """The URL points at this machine, a private network or a metadata service: it was not requested."""


class TooLarge(Exception):
    """The answer was longer than the caller takes."""


@dataclass
class Fetched:
    status: int
    headers: httpx.Headers
    body: bytes
    url: str


def check_url(url: str) -> web_addresses.Target:
    """The checked target to connect to, or AddressRefused saying why in words."""
    try:
        return web_addresses.check_url(url, field="url")
    except ToolError as error:
        raise AddressRefused(_why(error)) from error


def _why(error: ToolError) -> str:
    if error.kind == "not_found":
        return "its host name could not be found"
    # "url: <url> is refused: <why>. Only public web pages can be read."
    why = error.message.split(" is refused: ", 1)[-1]
    return why.removesuffix(" Only public web pages can be read.").rstrip(".")


def fetch(url: str, *, headers: dict | None = None, timeout: httpx.Timeout | None = None,
          max_bytes: int = 5 * 1024 * 1024) -> Fetched:
    """GET `url`, checking it and every redirect's target before each request and connecting only to the checked
    address, reading at most `max_bytes` of the answer (TooLarge past that)."""
    for _ in range(MAX_REDIRECTS + 1):
        target = check_url(url)
        network_call(f"reading {url}")
        with pinned_client(target, headers=headers, timeout=timeout) as client, \
                client.stream("GET", target.url) as response:
            if response.is_redirect and response.headers.get("location"):
                url = str(response.url.join(response.headers["location"]))
                continue
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise TooLarge(f"the answer is over {max_bytes // (1024 * 1024)} MB")
            return Fetched(response.status_code, response.headers, bytes(body), str(response.url))
    raise AddressRefused(f"it redirects more than {MAX_REDIRECTS} times")
