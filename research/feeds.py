"""Reading one RSS or Atom feed: fetched through the address check (`netguard`), parsed by feedparser, each item
given a key that stays the same however often the feed is read (its guid, else its link, else its title and date).

The outcome is a `FeedRead` whose `state` is one of Feed.State's: ok (with the items), malformed (the answer isn't
a feed Roadstar can read: HTML, broken XML with nothing in it), unreachable (no answer, an HTTP error), refused
(an address inside the server's network). `problem` says what went wrong in words for the owner.
"""

from __future__ import annotations

import calendar
import datetime
import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import feedparser
import httpx

from research import netguard

USER_AGENT = "Roadstar newsfeed (+https://docs.roadstar.app/tools/newsfeed)"
TIMEOUT = httpx.Timeout(20.0, connect=10.0)
ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
MAX_FEED_BYTES = 5 * 1024 * 1024
MAX_ITEMS = 200  # a feed's newest items read per visit
HEADLINE_LIMIT = 500
SUMMARY_LIMIT = 2000


@dataclass
class Item:
    key: str
    link: str
    headline: str
    summary: str
    published_at: datetime.datetime | None


@dataclass
class FeedRead:
    state: str  # ok, not_modified, malformed, unreachable, refused
    title: str = ""
    items: list[Item] = field(default_factory=list)
    problem: str = ""
    etag: str = ""
    modified: str = ""


class _Strip(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        elif tag in ("p", "br", "div", "li"):
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def plain(text: str, limit: int) -> str:
    """Text of a feed's field without markup, on one line, cut at `limit` characters."""
    if "<" in text or "&" in text:
        stripper = _Strip()
        stripper.feed(text)
        stripper.close()
        text = "".join(stripper.parts)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def item_key(entry) -> str | None:
    """The item's identity: guid (id), else link, else title with date; None when it has none of them."""
    identity = (entry.get("id") or "").strip()
    if identity:
        basis = "id:" + identity
    elif (entry.get("link") or "").strip():
        basis = "link:" + entry["link"].strip()
    elif (entry.get("title") or "").strip():
        basis = "title:" + entry["title"].strip() + "|" + (entry.get("published") or entry.get("updated") or "")
    else:
        return None
    return hashlib.sha256(basis.encode("utf-8", "surrogatepass")).hexdigest()


def _published(entry) -> datetime.datetime | None:
    parsed = entry.get("published_parsed") or entry.get("updated_parsed")
    if not parsed:
        return None
    try:
        return datetime.datetime.fromtimestamp(calendar.timegm(parsed), tz=datetime.UTC)
    except (OverflowError, ValueError, TypeError):
        return None


def parse(body: bytes, *, content_type: str = "") -> FeedRead:
    """A feed's answer, parsed. Never raises: what can't be read is `malformed`, with why."""
    try:
        parsed = feedparser.parse(body, response_headers={"content-type": content_type} if content_type else None)
    except Exception as error:  # noqa: BLE001  (feedparser on a stranger's bytes: whatever it raises, malformed)
        return FeedRead("malformed", problem=f"It couldn't be read as a feed ({type(error).__name__}).")
    if not parsed.get("version") and not parsed.entries:
        if re.search(rb"<\s*html\b", body[:2000], re.IGNORECASE):
            problem = "It is a web page, not an RSS or Atom feed. Look on the site for its feed's own address."
        elif parsed.get("bozo"):
            problem = f"It isn't a well-formed feed: {_bozo_words(parsed)}."
        else:
            problem = "It isn't an RSS or Atom feed."
        return FeedRead("malformed", problem=problem)
    items: list[Item] = []
    seen: set[str] = set()
    for entry in parsed.entries[:MAX_ITEMS]:
        key = item_key(entry)
        if key is None or key in seen:
            continue  # an item with nothing to know it by, or the same one twice in one answer
        seen.add(key)
        headline = plain(entry.get("title") or "", HEADLINE_LIMIT) or "(no headline)"
        link = (entry.get("link") or "").strip()
        if not link.lower().startswith(("http://", "https://")) or len(link) > 2000:
            link = ""  # a javascript: or data: link never reaches a page or an agent as a source
        items.append(Item(
            key=key,
            link=link,
            headline=headline,
            summary=plain(entry.get("summary") or "", SUMMARY_LIMIT),
            published_at=_published(entry),
        ))
    problem = ""
    if parsed.get("bozo") and not items:
        return FeedRead("malformed", problem=f"It isn't a well-formed feed: {_bozo_words(parsed)}.")
    return FeedRead("ok", title=plain(parsed.feed.get("title") or "", 300), items=items, problem=problem)


def _bozo_words(parsed) -> str:
    error = parsed.get("bozo_exception")
    words = str(getattr(error, "getMessage", lambda: error)() or "").strip()
    return words[:200] or "its XML is broken"


def read(url: str, *, etag: str = "", modified: str = "") -> FeedRead:
    """Fetch and parse one feed. Asks for what changed since `etag`/`modified`; never raises for the feed's faults."""
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT}
    if etag:
        headers["If-None-Match"] = etag
    if modified:
        headers["If-Modified-Since"] = modified
    try:
        got = netguard.fetch(url, headers=headers, timeout=TIMEOUT, max_bytes=MAX_FEED_BYTES)
    except netguard.AddressRefused as error:
        return FeedRead("refused", problem=f"Roadstar doesn't read this address: {error}.")
    except netguard.TooLarge:
        too_big = f"It is larger than a feed ({MAX_FEED_BYTES // (1024 * 1024)} MB or more)."
        return FeedRead("malformed", problem=too_big)
    except httpx.TimeoutException:
        return FeedRead("unreachable", problem="It didn't answer in time.")
    except httpx.HTTPError as error:
        return FeedRead("unreachable", problem=f"It couldn't be reached ({type(error).__name__}).")
    if got.status == 304:
        return FeedRead("not_modified", etag=etag, modified=modified)
    if got.status == 404 or got.status == 410:
        return FeedRead("unreachable", problem=f"There is nothing at this address any more (HTTP {got.status}).")
    if got.status >= 400:
        return FeedRead("unreachable", problem=f"The site answered with an error (HTTP {got.status}).")
    result = parse(got.body, content_type=got.headers.get("content-type", ""))
    result.etag = got.headers.get("etag", "")[:300]
    result.modified = got.headers.get("last-modified", "")[:100]
    return result
