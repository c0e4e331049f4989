"""Web search providers behind one interface, chosen by settings.

- **SearXNG** (self-hosted metasearch): `SEARXNG_URL`, the instance's address; its JSON API is
  `GET <url>/search?q=…&format=json`, which the instance must allow (`search: formats: [html, json]` in its
  settings.yml; otherwise it answers 403).
- **Brave Search API**: `BRAVE_SEARCH_API_KEY`; `GET https://api.search.brave.com/res/v1/web/search` with the key
  in `X-Subscription-Token`.

`WEB_SEARCH_PROVIDER` (`searxng` or `brave`) picks one when both are set; otherwise the one configured is used.
With neither, `configured_provider()` is None and the web group is absent from browse (tools/groups/web.py).

The provider's address is the administrator's, so it is not put through the SSRF check `web.read` applies to an
agent's links (a SearXNG on the private network is the usual setup). Failures map to the spec's error kinds:
429 `rate_limited`, a refused key or a refused JSON format `unavailable` with what the administrator should fix,
5xx and no answer `unavailable`, an answer that isn't the API's JSON `vendor`.
"""

from __future__ import annotations

import datetime
import html
import re
from dataclasses import dataclass, field

import httpx
from django.conf import settings

from core.errors import ToolError
from core.network import network_call

TIMEOUT = httpx.Timeout(15.0, connect=5.0)
BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search"
MAX_SNIPPET = 600


@dataclass
class Hit:
    """One search result as every provider gives it."""

    title: str | None
    url: str
    published: str | None  # YYYY-MM-DD when the provider knows it
    snippets: list[str] = field(default_factory=list)


class SearchProvider:
    """The one interface: `search(query, count)` returns up to `count` hits, best first, or raises ToolError."""

    label = ""

    def search(self, query: str, *, count: int) -> list[Hit]:
        raise NotImplementedError

    def _get(self, url: str, *, params: dict, headers: dict | None = None) -> dict:
        network_call(f"web search ({self.label})")
        try:
            with httpx.Client(timeout=TIMEOUT, trust_env=False, follow_redirects=False) as client:
                response = client.get(url, params=params, headers={"Accept": "application/json", **(headers or {})})
        except httpx.TimeoutException:
            raise ToolError("unavailable", f"{self.label} didn't answer in time. Try again later, or say so.") from None
        except httpx.HTTPError as error:
            raise ToolError("unavailable", f"{self.label} couldn't be reached ({error.__class__.__name__}). Try "
                                           "again later, or say so.") from None
        if response.status_code != 200:
            raise self._status_error(response)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ToolError("vendor", f"{self.label} answered something that isn't its JSON results.")
        return data

    def _status_error(self, response: httpx.Response) -> ToolError:
        status = response.status_code
        if status == 429:
            return ToolError("rate_limited", f"{self.label} is limiting searches (HTTP 429). Wait, then try once "
                                             "more.")
        if status >= 500:
            return ToolError("unavailable", f"{self.label} didn't answer properly (HTTP {status}). Try again later.")
        return ToolError("vendor", f"{self.label} refused the search (HTTP {status}): {_message_of(response)}")


class SearXNG(SearchProvider):
    label = "SearXNG"

    def __init__(self, base_url: str):
        self.base_url = base_url.rstrip("/")

    def search(self, query: str, *, count: int) -> list[Hit]:
        data = self._get(f"{self.base_url}/search", params={"q": query, "format": "json", "safesearch": "1"})
        results = data.get("results")
        if not isinstance(results, list):
            raise ToolError("vendor", "SearXNG answered without a list of results.")
        if not results and data.get("unresponsive_engines"):
            engines = ", ".join(str(e[0]) if isinstance(e, list) and e else str(e)
                                for e in data["unresponsive_engines"][:5])
            raise ToolError("unavailable", f"SearXNG's search engines didn't answer ({engines}). Try again later.")
        hits = []
        for result in results:
            if not isinstance(result, dict) or not _is_web_link(result.get("url")):
                continue
            hits.append(Hit(title=_clean(result.get("title")) or None, url=result["url"],
                            published=_date(result.get("publishedDate")),
                            snippets=[s for s in [_clean(result.get("content"))] if s]))
            if len(hits) >= count:
                break
        return hits

    def _status_error(self, response: httpx.Response) -> ToolError:
        if response.status_code == 403:
            return ToolError("unavailable", "SearXNG refuses to answer in JSON: whoever runs Roadstar should add "
                                            "json to search.formats in the instance's settings.yml.")
        return super()._status_error(response)


class BraveSearch(SearchProvider):
    label = "Brave Search"

    def __init__(self, api_key: str, endpoint: str = BRAVE_ENDPOINT):
        self.api_key = api_key
        self.endpoint = endpoint

    def search(self, query: str, *, count: int) -> list[Hit]:
        data = self._get(self.endpoint, params={"q": query, "count": min(max(count, 1), 20), "safesearch": "moderate",
                                                "extra_snippets": "true"},
                         headers={"X-Subscription-Token": self.api_key})
        web = data.get("web") or {}
        results = web.get("results") if isinstance(web, dict) else None
        if results is None:
            return []  # Brave leaves "web" out when nothing matched
        if not isinstance(results, list):
            raise ToolError("vendor", "Brave Search answered without a list of results.")
        hits = []
        for result in results:
            if not isinstance(result, dict) or not _is_web_link(result.get("url")):
                continue
            snippets = [_clean(result.get("description"))]
            snippets += [_clean(s) for s in (result.get("extra_snippets") or []) if isinstance(s, str)]
            hits.append(Hit(title=_clean(result.get("title")) or None, url=result["url"],
                            published=_date(result.get("page_age")),
                            snippets=list(dict.fromkeys(s for s in snippets if s))))
            if len(hits) >= count:
                break
        return hits

    def _status_error(self, response: httpx.Response) -> ToolError:
        if response.status_code in (401, 403):
            return ToolError("unavailable", f"Brave Search refused Roadstar's API key (HTTP {response.status_code}): "
                                            "whoever runs Roadstar should check BRAVE_SEARCH_API_KEY.")
        return super()._status_error(response)


def configured_provider() -> SearchProvider | None:
    """The provider the settings name, or None when web search isn't set up."""
    choice = (getattr(settings, "WEB_SEARCH_PROVIDER", None) or "").strip().lower()
    searxng = getattr(settings, "SEARXNG_URL", None)
    brave = getattr(settings, "BRAVE_SEARCH_API_KEY", None)
    if choice == "searxng" or (not choice and searxng):
        return SearXNG(searxng) if searxng else None
    if choice == "brave" or (not choice and brave):
        return BraveSearch(brave) if brave else None
    return None


def _is_web_link(value) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://")) and len(value) <= 2000


_TAG = re.compile(r"<[^>]{0,200}>")


def _clean(value) -> str:
    """A provider's title or snippet as plain text: its highlighting tags and entities gone, spaces tidied."""
    if not isinstance(value, str):
        return ""
    text = re.sub(r"\s+", " ", html.unescape(_TAG.sub("", value))).strip()
    return text if len(text) <= MAX_SNIPPET else text[:MAX_SNIPPET].rsplit(" ", 1)[0] + " …"


def _date(value) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.datetime.fromisoformat(value).date().isoformat()
    except ValueError:
        match = re.match(r"\d{4}-\d{2}-\d{2}", value)
        return match.group(0) if match else None


def _message_of(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200] or "no message"
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            return str(error.get("detail") or error.get("code") or error)[:200]
        if error:
            return str(error)[:200]
    return str(data)[:200]
