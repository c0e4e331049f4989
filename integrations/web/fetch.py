"""Fetching one web page for `web.read`, with the address that was checked pinned.

Each hop (the URL, then every redirect, at most MAX_REDIRECTS) is checked by `core.web_addresses.check_url`, and its
connection goes to the address that check resolved and approved: the transport's network backend ignores the name
and connects to that address, while the request keeps the name in its Host header and TLS keeps it as the server
name (SNI) and for the certificate. So a name that answers a public address to the check and a private one a
moment later reaches nothing it shouldn't. Proxies from the environment are not used (a proxy would resolve the
name again, elsewhere).

A page must answer within the timeouts (CONNECT_TIMEOUT, READ_TIMEOUT between reads, PAGE_DEADLINE for the whole
page, redirects included) and be at most MAX_BYTES once decoded (a compressed page is measured as it unpacks).
"""

from __future__ import annotations

import functools
import ssl
import time
from dataclasses import dataclass

import httpcore
import httpx

from core.errors import ToolError
from core.network import network_call
from core.web_addresses import Target, check_url

MAX_REDIRECTS = 5
MAX_BYTES = 5 * 1024 * 1024
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 10.0
PAGE_DEADLINE = 20.0
USER_AGENT = "Roadstar/1.0 (+https://docs.roadstar.app/tools/web) reading a page for its owner"
ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.1"
READABLE_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/pdf")


@dataclass
class Fetched:
    url: str  # where the page was found, after redirects
    content_type: str
    body: bytes
    encoding: str | None


class _PinnedBackend(httpcore.SyncBackend):
    """Connects to the checked address whatever name the request carries (TLS still verifies that name)."""

    def __init__(self, target: Target):
        self.target = target

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return super().connect_tcp(self.target.address, self.target.port, timeout=timeout,
                                   local_address=local_address, socket_options=socket_options)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificates a page's TLS is checked against: the system's usual authorities, as httpx has them. Made
    once a process: loading the authorities costs about 0.4 s, more than most page reads, and a client-side context
    is safe to share between connections and threads."""
    return httpx.create_ssl_context()


def _pinned_client(target: Target) -> httpx.Client:
    context = tls_context()
    # The same context for the transport's own pool (replaced below), so that none is built twice.
    transport = httpx.HTTPTransport(verify=context, retries=0)
    # httpx builds its connection pool without a way to pass a network backend; this one is httpx's own pool with
    # ours (httpx and httpcore are pinned, and tests/integrations/test_web_fetch.py proves the pin holds).
    transport._pool = httpcore.ConnectionPool(
        ssl_context=context, max_connections=1, retries=0,
        network_backend=_PinnedBackend(target),
    )
    return httpx.Client(
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT),
        headers={"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Language": "en;q=1.0, *;q=0.5"},
    )


def pinned_client(target: Target, *, headers: dict | None = None, timeout: httpx.Timeout | None = None) -> httpx.Client:
    """A client whose connections go only to the address `check_url` approved for `target`, for other readers of
    an owner-given or agent-given URL (the newsfeed's feeds). It follows no redirects: check each hop again."""
    client = _pinned_client(target)
    if headers:
        client.headers.update(headers)
    if timeout is not None:
        client.timeout = timeout
    return client


def fetch_page(target: Target) -> Fetched:
    """The page at a checked URL, following up to MAX_REDIRECTS redirects, each checked again. Raises ToolError."""
    deadline = time.monotonic() + PAGE_DEADLINE
    first = target.url
    for hop in range(MAX_REDIRECTS + 1):
        network_call("web.read")
        try:
            with _pinned_client(target) as client, client.stream("GET", target.url) as response:
                if response.is_redirect:
                    location = response.headers.get("location", "")
                    try:
                        next_url = str(response.url.join(location))
                    except httpx.InvalidURL:
                        raise ToolError("vendor", f"{first} redirected to {location[:200]!r}, which isn't a valid "
                                                  "link.") from None
                else:
                    return _read(response, target.url, deadline)
        except httpx.TimeoutException:
            raise ToolError("unavailable", f"{target.url} didn't answer in time. Try again later, or say so.") from None
        except httpx.InvalidURL:
            raise ToolError("bad_input", f"{target.url} is not a link Roadstar can request.") from None
        except httpx.RemoteProtocolError as error:
            if "location header" in str(error):  # httpx reads a redirect's Location as it arrives
                raise ToolError("vendor", f"{first} redirected to a link that isn't valid ({error})") from None
            raise ToolError("unavailable", f"{target.url} answered in a way that isn't HTTP ({error}). Try again "
                                           "later, or say so.") from None
        except httpx.HTTPError as error:
            raise ToolError("unavailable", f"{target.url} couldn't be reached ({error.__class__.__name__}). Try "
                                           "again later, or say so.") from None
        if hop == MAX_REDIRECTS:
            break
        try:
            target = check_url(next_url)
        except ToolError as error:
            if error.kind == "bad_input":
                raise ToolError("bad_input", f"{first} redirected to {next_url}, which is refused: "
                                + error.message.split(" is refused: ", 1)[-1]) from None
            raise
        if time.monotonic() > deadline:
            raise ToolError("unavailable", f"{first} took too long to answer. Try again later, or say so.")
    raise ToolError("unsupported", f"{first} redirects more than {MAX_REDIRECTS} times; read the page it ends on "
                                   "instead, if you know it.")


def _read(response: httpx.Response, url: str, deadline: float) -> Fetched:
    status = response.status_code
    if status >= 400:
        raise _status_error(status, url)
    content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type and content_type not in READABLE_TYPES:
        raise ToolError("unsupported", f"{url} is {content_type}, not a page with text Roadstar can read.")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise _too_large(url)
    body = bytearray()
    for chunk in response.iter_bytes():  # decoded: a compressed page counts at its unpacked size
        body += chunk
        if len(body) > MAX_BYTES:
            raise _too_large(url)
        if time.monotonic() > deadline:
            raise ToolError("unavailable", f"{url} took too long to send. Try again later, or say so.")
    return Fetched(url=str(response.url), content_type=content_type or "text/html", body=bytes(body),
                   encoding=response.charset_encoding)


def _too_large(url: str) -> ToolError:
    return ToolError("too_large", f"{url} is over {MAX_BYTES // (1024 * 1024)} MB; use its link instead.")


def _status_error(status: int, url: str) -> ToolError:
    if status in (404, 410):
        return ToolError("not_found", f"Nothing at {url} (HTTP {status}), or it was moved. Search for it again.")
    if status in (401, 403, 451):
        return ToolError("forbidden", f"{url} doesn't let Roadstar read it (HTTP {status}).")
    if status == 429:
        return ToolError("rate_limited", f"{url} is limiting requests (HTTP 429). Wait, then try once more.")
    if status >= 500:
        return ToolError("unavailable", f"{url} didn't answer properly (HTTP {status}). Try again later.")
    return ToolError("vendor", f"{url} answered HTTP {status}.")
