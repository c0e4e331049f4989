"""search.search and search.read over the copy: every filter, exact totals and counts over every match, one result
per thread, and items read whole 30,000 characters at a time. Always within one workspace: another workspace's
items are never in the rows a search starts from, and another workspace's id reads as not_found."""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from core.errors import ToolError
from core.models import Organization
from core.timefmt import iso
from integrations.models import Connection, SearchCopy
from records.models import Company, Contact, ContactEmail
from search import dates, embeddings, fts, index, sync
from search.models import WORKSPACE, SearchItem, SearchPeopleTally, SearchPerson, SearchPlace, SearchTally

READ_PAGE = 30_000
TOP_PEOPLE = 25
# Results by meaning, after a first page of results by the words (where embeddings are configured).
RELATED = 5
SNIPPET = 160

# A word and a number that name one thing ("PO 4471", "INV-0042", "order #88"): matched as written, together.
_IDENTIFIER = re.compile(r"\b([A-Za-z]{1,10})[\s#:.-]{0,3}(\d[\d-]{0,20})\b")
_QUOTED = re.compile(r'"([^"]*)"')
_EMAIL = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_MONEY = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d{2})?|\b\d[\d,]*(?:\.\d{2})?\s?(?:USD|EUR|GBP)\b)")
_WORDY = re.compile(r"\w")


def _bad_input(field_name: str, message: str) -> ToolError:
    return ToolError("bad_input", f"{field_name}: {message}")


@dataclass
class Filters:
    query: str | None = None
    sender: Sequence[str] = field(default_factory=list)
    to: Sequence[str] = field(default_factory=list)
    with_: Sequence[str] = field(default_factory=list)
    after: str | None = None
    before: str | None = None
    types: Sequence[str] = field(default_factory=list)
    places: Sequence[str] = field(default_factory=list)
    has: Sequence[str] = field(default_factory=list)
    dir: str | None = None
    bulk: bool | None = None
    waiting: str | None = None
    thread: str | None = None
    sort: str | None = None
    limit: int = 10
    cursor: str | None = None

    def fingerprint(self) -> str:
        shape = {k: v for k, v in self.__dict__.items() if k not in ("limit", "cursor")}
        return hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode()).hexdigest()[:16]


# --- reading the query ----------------------------------------------------------------------------------------


def phrases_of(query: str) -> tuple[list[str], list[str]]:
    """The phrases every match must hold, and the identifiers among them (for `understood`). Quoted parts, email
    addresses and identifiers such as "PO 4471" stay whole; every other word is its own phrase."""
    phrases, identifiers = [], []
    rest = query

    def take(pattern, note: bool):
        nonlocal rest

        def keep(m):
            text = m.group(1) if pattern is _QUOTED else m.group(0)
            if _WORDY.search(text):
                phrases.append(text.strip())
                if note:
                    identifiers.append(text.strip())
            return " "

        rest = pattern.sub(keep, rest)

    take(_QUOTED, False)
    take(_EMAIL, True)
    take(_IDENTIFIER, True)
    phrases += [word for word in rest.split() if _WORDY.search(word)]
    return list(dict.fromkeys(phrases)), identifiers


# --- whom from/to/with name -----------------------------------------------------------------------------------


def _who(org: Organization, value: str) -> tuple[Q, str]:
    """A Q over SearchPerson for one name, address or company, and how it was read."""
    text = value.strip()
    lowered = text.lower()
    if _EMAIL.fullmatch(text):
        return Q(address=lowered), f"the address {lowered}"
    if lowered.startswith("@") or (re.fullmatch(r"[\w-]+(\.[\w-]+)+", lowered) and " " not in lowered):
        domain = lowered.lstrip("@")
        return Q(domain=domain), f"anyone at {domain}"
    company = Company.objects.filter(organization=org, name__iexact=text).first()
    if company is not None:
        domains = {d.lower().lstrip("@") for d in company.domains or []}
        if company.website:
            host = re.sub(r"^https?://", "", company.website.lower()).split("/")[0]
            domains.add(host.removeprefix("www."))
        domains.discard("")
        people = set(ContactEmail.objects.filter(organization=org, contact__company_links__company=company)
                     .values_list("email", flat=True))
        people = {p.lower() for p in people}
        words = f"everyone at {company.name}" + (f" ({', '.join(sorted(domains))})" if domains else "")
        return Q(domain__in=domains) | Q(address__in=people), words
    contacts = list(Contact.objects.filter(organization=org).filter(
        Q(name__iexact=text) | Q(name__istartswith=f"{text} ")).prefetch_related("emails")[:5])
    addresses = {e.email.lower() for c in contacts for e in c.emails.all()}
    by_name = Q(name_key=lowered) | Q(name_key__startswith=f"{lowered} ")
    if addresses:
        names = ", ".join(c.name for c in contacts)
        return Q(address__in=addresses) | by_name, f"{names} ({', '.join(sorted(addresses))})"
    return by_name, f"anyone named {text}"


_ROLES: dict[str, tuple[str, ...] | None] = {"from": ("from", "author"), "to": ("to",), "with": None}


# --- the search -----------------------------------------------------------------------------------------------


def visible(org: Organization):
    """The workspace's own items, and the copies of accounts whose search is on. An account turned off (or
    disconnected) is left out at once, until the sweep deletes its copy; with none such, nothing is filtered, so
    counts read the indexes alone."""
    hidden = _hidden(org)
    items = SearchItem.objects.filter(organization=org)
    return items.exclude(connection_id__in=hidden) if hidden else items


def _hidden(org: Organization) -> list:
    """The accounts whose copy is still there but out of search (turned off or disconnected, until the sweep)."""
    shown = set(SearchCopy.objects.filter(connection__organization=org, on=True,
                                          connection__status=Connection.Status.CONNECTED)
                .values_list("connection_id", flat=True))
    others = Connection.objects.filter(organization=org).exclude(id__in=shown).values_list("id", flat=True)
    return [c for c in others if SearchItem.objects.filter(connection_id=c).exists()]


def _places(value: str) -> str:
    text = value.strip()
    if text.lower().startswith("label:"):
        return "label:" + text[6:].strip().lower()
    parts = [p.strip() for p in re.split(r"\s*(?:›|>|/)\s*", text) if p.strip()]
    return " › ".join(parts).lower()


def _cursor_offset(filters: Filters) -> int:
    if not filters.cursor:
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(filters.cursor.encode() + b"=" * (-len(filters.cursor) % 4)))
        offset, fingerprint = int(data["o"]), data["f"]
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise _bad_input("cursor", "not a cursor search gave; pass next exactly as it came") from None
    if fingerprint != filters.fingerprint():
        raise _bad_input("cursor", "this cursor is from a search with other filters; give the same filters with it")
    if not 0 <= offset <= 1_000_000:
        raise _bad_input("cursor", "not a cursor search gave; pass next exactly as it came")
    return offset


def _cursor(filters: Filters, offset: int) -> str:
    raw = json.dumps({"o": offset, "f": filters.fingerprint()}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def search(*, org: Organization, filters: Filters, now: datetime.datetime | None = None) -> dict:
    now = now or timezone.now()
    offset = _cursor_offset(filters)
    index.workspace_catch_up(org)
    sync.catch_up_for_search(org)

    hidden = _hidden(org)
    items = SearchItem.objects.filter(organization=org)
    if hidden:
        items = items.exclude(connection_id__in=hidden)
    understood: dict = {}
    phrases: list[str] = []
    span: list = [None, None]  # the date range [after, before), for the tallies
    if filters.query and filters.query.strip():
        phrases, identifiers = phrases_of(filters.query)
        if not phrases:
            raise _bad_input("query", "has no words to search for")
        if identifiers:
            understood["query"] = "matched exactly, as written: " + ", ".join(f'"{i}"' for i in identifiers)

    for name, values in (("from", filters.sender), ("to", filters.to), ("with", filters.with_)):
        if not values:
            continue
        who, read = Q(), {}
        for value in values:
            q, words = _who(org, value)
            who |= q
            read[value] = words
        people = SearchPerson.objects.filter(organization=org).filter(who)
        roles = _ROLES[name]
        if roles:
            people = people.filter(role__in=roles)
        items = items.filter(id__in=people.values("item_id"))
        understood[name] = read

    for name, when in (("after", filters.after), ("before", filters.before)):
        if when:
            try:
                start, read_as = dates.start_of(when, time_zone=org.time_zone, now=now)
            except ValueError as e:
                raise _bad_input(name, str(e)) from None
            items = items.filter(date__gte=start) if name == "after" else items.filter(date__lt=start)
            span[0 if name == "after" else 1] = start
            understood[name] = f"{'from' if name == 'after' else 'before'} {read_as}"

    if filters.types:
        items = items.filter(type__in=filters.types)
    if filters.places:
        place_q = Q()
        for value in filters.places:
            place = _places(value)
            place_q |= Q(place=place) | Q(place__startswith=f"{place} › ")
        items = items.filter(id__in=SearchPlace.objects.filter(organization=org).filter(place_q).values("item_id"))
    if "attachment" in filters.has:
        items = items.filter(has_attachment=True)
    if "star" in filters.has:
        items = items.filter(starred=True)
    if filters.dir:
        items = items.filter(dir=filters.dir)
    if filters.bulk is not None:
        items = items.filter(type="email", bulk=filters.bulk)
    if filters.waiting:
        items = items.filter(type="email", thread_last_dir="received" if filters.waiting == "me" else "sent")
    if filters.thread:
        items = items.filter(thread=filters.thread.strip())

    # The words last: what the other filters allow is where related results come from.
    scope = items
    if phrases:
        items = fts.match(items, phrases)

    # Only type, dir, bulk and dates (or nothing): the exact numbers are summed already, in the tallies.
    broad = not (phrases or filters.sender or filters.to or filters.with_ or filters.places or filters.has
                 or filters.waiting or filters.thread or hidden)
    counted = _tally_counts(org, items, filters, *span) if broad else None
    total, counts = counted or _counts(items)
    sort = filters.sort or ("relevance" if phrases else "newest")
    if sort == "relevance" and not phrases:
        sort = "newest"
    results, more = _page(org, items, phrases, sort, offset, filters.limit, by_thread=not filters.thread)
    related = _related(org, filters, scope, items, results) if phrases and not offset else []
    out: dict = {
        "total": total,
        "results": results,
        "counts": counts,
        "sources": sources(org),
        "next": _cursor(filters, offset + filters.limit) if more else None,
    }
    if related:
        out["results"] += related
        out["related"] = len(related)
    if phrases:
        out["words"] = " ".join(f'"{p}"' for p in phrases)
    if understood:
        out["understood"] = understood
    hint = _hint(org, total, out["sources"])
    if hint:
        out["hint"] = hint
    return out


def _related(org, filters: Filters, scope, matches, results: list[dict]) -> list[dict]:
    """Up to RELATED results by meaning (where embeddings are configured): among the items the search's other filters
    allow, none the words matched, one per thread and none of a thread already on the page."""
    if not embeddings.configured():
        return []
    count = min(RELATED, filters.limit)
    found = embeddings.related(org=org, query=filters.query or "",
                               candidates=scope.exclude(id__in=matches.values("id")),
                               count=count * 3)  # room for several of one thread
    rows = {row.id: row for row in scope.filter(id__in=found)}
    shown = {r.get("thread") or r["id"] for r in results}
    out = []
    for item_id in found:
        row = rows.get(item_id)
        if row is None or row.group in shown:
            continue
        shown.add(row.group)
        out.append({**_result(org, row, [], 0), "related": True})
        if len(out) == count:
            break
    return out


def _counts(items) -> tuple[int, dict]:
    """The exact total and the counts by type, source, year and dir, from one GROUP BY over every match, and the
    people most on them (the owner left out)."""
    rows = list(items.order_by().values("type", "source", "year", "dir").annotate(n=Count("id")))
    people = (_people_counts(items).order_by("-n", "address")[:TOP_PEOPLE])
    return _shape_counts(rows, people)


def _people_counts(items):
    """Each person on these items, with how many (their counted rows: one per item, so no COUNT(DISTINCT))."""
    return (SearchPerson.objects.filter(item_id__in=items.order_by().values("id"), counted=True)
            .values("address").annotate(n=Count("item_id"), name=Max("name")))


def _shape_counts(rows, people) -> tuple[int, dict]:
    total = sum(r["n"] for r in rows)
    by: dict[str, dict] = {"type": {}, "source": {}, "year": {}, "dir": {}}
    for row in rows:
        for name in by:
            if name == "dir" and not row["dir"]:
                continue
            key = str(row[name])
            by[name][key] = by[name].get(key, 0) + row["n"]
    counts = {
        "type": _most_first(by["type"]),
        "source": _most_first(by["source"]),
        "year": dict(sorted(by["year"].items(), reverse=True)),
        "dir": _most_first(by["dir"]),
        "people": {(f"{p['name']} <{p['address']}>" if p["name"] else p["address"]): p["n"] for p in people},
    }
    return total, counts


def _month_start(moment: datetime.datetime, *, up: bool) -> datetime.datetime:
    """The start of moment's UTC month, or of the next one when `up` and moment isn't a month's start itself."""
    moment = moment.astimezone(datetime.UTC)
    start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if up and start != moment:
        start = (start + datetime.timedelta(days=32)).replace(day=1)
    return start


def _tally_counts(org, items, filters: Filters, after, before) -> tuple[int, dict] | None:
    """The exact total and counts of a broad search (filters of type, dir, bulk and dates only), from the tallies
    for the whole UTC months inside its dates and from the items themselves for the partial months at its ends.
    None when its dates hold no whole month (a week's items are few: counted one by one)."""
    inner_start = _month_start(after, up=True) if after else None
    inner_end = _month_start(before, up=False) if before else None
    if inner_start and inner_end and inner_start >= inner_end:
        return None
    buckets = Q(organization=org, n__gt=0)
    if inner_start:
        buckets &= Q(month__gte=inner_start.strftime("%Y-%m"))
    if inner_end:
        buckets &= Q(month__lt=inner_end.strftime("%Y-%m"))
    if filters.types:
        buckets &= Q(type__in=filters.types)
    if filters.dir:
        buckets &= Q(dir=filters.dir)
    if filters.bulk is not None:
        buckets &= Q(type="email", bulk=filters.bulk)
    rows = list(SearchTally.objects.filter(buckets).values("type", "source", "year", "dir").annotate(n=Sum("n")))
    people_rows = SearchPeopleTally.objects.filter(buckets).values("address").annotate(n=Sum("n"), name=Max("name"))
    edges = Q()
    if inner_start:
        edges |= Q(date__lt=inner_start)
    if inner_end:
        edges |= Q(date__gte=inner_end)
    if not edges:
        return _shape_counts(rows, people_rows.order_by("-n", "address")[:TOP_PEOPLE])
    edge_items = items.filter(edges)
    rows += list(edge_items.order_by().values("type", "source", "year", "dir").annotate(n=Count("id")))
    # Every person's count is the tallies' plus the edges': the top 25 of the sum, not of each.
    people: dict[str, dict] = {}
    for row in [*people_rows, *_people_counts(edge_items)]:
        seen = people.setdefault(row["address"], {"address": row["address"], "n": 0, "name": ""})
        seen["n"] += row["n"]
        seen["name"] = max(seen["name"], row["name"] or "")
    top = sorted(people.values(), key=lambda p: (-p["n"], p["address"]))[:TOP_PEOPLE]
    return _shape_counts(rows, top)


def _most_first(counts: dict) -> dict:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


CHUNK = 400


def _ordered_chunk(items, phrases, sort, start: int, count: int) -> list[tuple[int, str]]:
    if sort == "relevance" and phrases:
        return fts.ranked(items, phrases, start, count)
    return list(items.order_by(*_item_order(sort)).values_list("id", "group")[start:start + count])


def _page(org, items, phrases, sort, offset, limit, *, by_thread: bool) -> tuple[list[dict], bool]:
    if not by_thread:
        ids = [item_id for item_id, _ in _ordered_chunk(items, phrases, sort, offset, limit + 1)]
        rows = {row.id: row for row in items.filter(id__in=ids)}
        more = len(ids) > limit
        return [_result(org, rows[i], phrases, 0) for i in ids[:limit] if i in rows], more
    # One result per thread: walk the matches in order (newest first reads the date index and stops early), keeping
    # each thread's first, until the page and one more are found.
    wanted = offset + limit + 1
    firsts: dict[str, int] = {}
    start = 0
    while len(firsts) < wanted:
        chunk = _ordered_chunk(items, phrases, sort, start, CHUNK)
        for item_id, group in chunk:
            firsts.setdefault(group, item_id)
            if len(firsts) >= wanted:
                break
        if len(chunk) < CHUNK:
            break
        start += CHUNK
    page_groups = list(firsts)[offset:offset + limit + 1]
    more = len(page_groups) > limit
    page_groups = page_groups[:limit]
    rows = {row.id: row for row in items.filter(id__in=[firsts[g] for g in page_groups])}
    sizes = dict(items.order_by().filter(group__in=page_groups).values("group").annotate(n=Count("id"))
                 .values_list("group", "n"))
    return [_result(org, rows[firsts[g]], phrases, sizes.get(g, 1) - 1) for g in page_groups], more


def _item_order(sort: str) -> list[str]:
    return ["date", "id"] if sort == "oldest" else ["-date", "-id"]


def _snippet(item: SearchItem, phrases: list[str]) -> str:
    text = " ".join(item.body.split())
    lowered = text.lower()
    spots = [lowered.find(p.lower()) for p in phrases]
    spots = [s for s in spots if s >= 0]
    if not spots:
        return text[:SNIPPET] + ("…" if len(text) > SNIPPET else "")
    start = max(0, min(spots) - SNIPPET // 3)
    piece = text[start:start + SNIPPET]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET < len(text) else "")


def _where(item: SearchItem) -> str:
    places = list(item.places.values_list("place", flat=True)) if item.type != "email" else []
    if item.type == "email" or item.key.startswith("mail:"):
        return f"{item.source}, {'sent' if item.dir == 'sent' else 'received'} mail"
    if item.source == WORKSPACE:
        return "the workspace" + (f", project {places[0]}" if places and item.type in ("doc", "sheet") else "")
    return item.source + (f", {places[0]}" if places else "")


def _result(org, item: SearchItem, phrases, more_in_thread: int) -> dict:
    result: dict = {
        "id": item.key,
        "type": item.type,
        "title": item.title,
        "date": iso(item.date),
        "where": _where(item),
        "match": _snippet(item, phrases),
    }
    if item.sender:
        result["from"] = item.sender
    if item.recipients:
        result["to"] = ", ".join(item.recipients)
    if item.dir:
        result["dir"] = item.dir
    if item.thread:
        result["thread"] = item.thread
        if more_in_thread:
            result["moreInThread"] = more_in_thread
    if item.attachments:
        result["attachments"] = ", ".join(f"{a['name']} ({a['id']})" for a in item.attachments)
    money = list(dict.fromkeys(_MONEY.findall(f"{item.title}\n{item.body}")))[:5]
    if money:
        result["money"] = money
    if item.added_by:
        result["addedBy"] = item.added_by
    if item.type in ("contact", "company", "project") and item.body:
        result["text"] = item.body[:400]
    return result


def sources(org: Organization) -> dict:
    """Each source's state, in words an agent can act on."""
    out = {WORKSPACE: "docs, contacts, companies and projects: always in search, current"}
    for connection in Connection.objects.filter(organization=org, status=Connection.Status.CONNECTED).select_related(
        "search_copy"
    ):
        if not {"mail", "files", "calendar"} & set(connection.groups):
            continue
        copy = getattr(connection, "search_copy", None)
        out[connection.account] = copy_words(connection, copy)
    return out


def copy_words(connection: Connection, copy: SearchCopy | None) -> str:
    what = ", ".join({"mail": "mail", "files": "files", "calendar": "meetings"}[g] for g in connection.groups
                     if g in ("mail", "files", "calendar"))
    if copy is None or not copy.on:
        return f"{what}: not in search (the owner hasn't turned search on for it); its own tools search it live"
    if copy.state == SearchCopy.State.FAILED:
        return f"{what}: not copied ({copy.error or 'the copy failed'}); its own tools search it live"
    if copy.state == SearchCopy.State.CURRENT or copy.first_synced_at:
        since = copy.on_since.date().isoformat() if copy.on_since else "?"
        return f"{what}: in search since {since}, copied up to {iso(copy.synced_at)}"
    return (f"{what}: being copied ({copy.copied} of about {copy.total}): what isn't copied yet is found with its "
            "own tools")


def _hint(org, total: int, source_states: dict) -> str | None:
    copying = [account for account, words in source_states.items() if "being copied" in words]
    if copying:
        return (f"{', '.join(copying)} {'is' if len(copying) == 1 else 'are'} still being copied into search: what "
                "isn't copied yet is found with mail.search, files.search or calendar's own tools.")
    if total:
        return None
    return ("Nothing matched. Search is literal: try other words, fewer words or filters, or a name instead of an "
            "address; the sources say what is in search.")


# --- read -----------------------------------------------------------------------------------------------------


def _header(item: SearchItem) -> str:
    if item.type == "email":
        lines = [f"From: {item.sender}", f"To: {', '.join(item.recipients)}", f"Date: {iso(item.date)}",
                 f"Subject: {item.title}"]
        if item.attachments:
            lines.append("Attachments: " + ", ".join(f"{a['name']} ({a['id']})" for a in item.attachments))
        return "\n".join(lines) + "\n\n"
    if item.type == "meeting":
        guests = f"\nGuests: {', '.join(item.recipients)}" if item.recipients else ""
        return f"Meeting: {item.title}\nWhen: {iso(item.date)}{guests}\n\n"
    return ""


def read(*, org: Organization, item_id: str, offset: int = 0) -> dict:
    item_id = item_id.strip()
    items = visible(org)
    if ":t:" in item_id:
        thread = list(items.filter(thread=item_id).order_by("date", "id"))
        if not thread:
            raise ToolError("not_found", f"No thread {item_id} in search. Ids come from search.search's results.")
        text = "\n\n---\n\n".join(_header(m) + m.body for m in thread)
        first = thread[0]
        attachments = [a for m in thread for a in m.attachments]
        shape = {"title": first.title, "url": first.url, "source": first.source}
    else:
        item = items.filter(key=item_id).first()
        if item is None:
            raise ToolError("not_found", f"No item {item_id} in search. Ids come from search.search's results.")
        text = _header(item) + item.body
        attachments = list(item.attachments)
        shape = {"title": item.title, "url": item.url, "source": item.source}
    shape["text"] = text[offset:offset + READ_PAGE]
    if offset + READ_PAGE < len(text):
        shape["nextOffset"] = offset + READ_PAGE
    if attachments:
        shape["attachments"] = [{"id": a["id"], "name": a["name"], "quality": a.get("quality", "text")}
                                for a in attachments]
    return shape
