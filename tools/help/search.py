"""help.search: the pages and parts of pages with the most of the query's words, best first.

Each page is searched whole and part by part. A unit's score is, in order: how many of the query's distinct
words it has (the spec's "the most of these words"), how many of them are in its title or heading, then how
often they occur for its length. A word matches a word of the page, or the start of a longer one ("invoice"
finds "invoices"; at least four letters); a tool's name such as `mail.send` or `not_done_yet` is one word. A page
is not listed when one of its parts has as many of the words: the part is the better answer.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from tools.help.library import Library, Page

WORD = re.compile(r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
OPENS_CHARS = 240
PREFIX_FROM = 4  # a query word this long also finds longer words it starts
# Words that say nothing about which page is meant; a query of only these is searched as it is.
QUIET = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "if", "in",
    "is", "it", "its", "me", "my", "of", "on", "or", "so", "that", "the", "this", "to", "what", "when", "where",
    "which", "who", "why", "with", "you", "your",
})


def words(text: str) -> list[str]:
    """The words of a text, lower case; a dotted or hyphenated name counts whole and by its pieces."""
    found = []
    for match in WORD.findall(text.lower()):
        found.append(match)
        if "." in match or "-" in match:
            found += [piece for piece in re.split(r"[.\-]", match) if piece]
    return found


def query_words(query: str) -> list[str]:
    every = list(dict.fromkeys(w.strip("._-") for w in WORD.findall(query.lower()) if w.strip("._-")))
    telling = [w for w in every if w not in QUIET]
    return telling or every


@dataclass(frozen=True)
class Unit:
    page: Page
    anchor: str  # "" for the whole page
    title: str
    body: str
    counts: Counter[str]
    title_words: frozenset[Any]

    @property
    def address(self) -> str:
        return self.page.address + (f"#{self.anchor}" if self.anchor else "")


@cache
def _units(library: Library) -> tuple[Unit, ...]:
    units = []
    for page in library:
        units.append(Unit(page, "", page.title, page.text, Counter(words(page.text)),
                          frozenset(words(page.title))))
        for part in page.parts:
            # A part is titled by its heading, its page's title, and the names in its first line (a tool's part
            # opens with the tool's name: `mail.send` · …).
            first_line = next((line for line in part.text.splitlines()[1:] if line.strip()), "")
            named = " ".join(re.findall(r"`([^`]+)`", first_line))
            title_words = frozenset(words(part.title)) | frozenset(words(page.title)) | frozenset(words(named))
            units.append(Unit(page, part.anchor, part.title, part.text, Counter(words(part.text)), title_words))
    return tuple(units)


def _matches(word: str, unit: Unit) -> int:
    """How often the word occurs in the unit, counting longer words it starts. A dotted name the unit doesn't
    have whole (`when.ask`, where a page writes `when` and `ask` apart) counts where every piece is there."""
    if ("." in word or "-" in word) and not unit.counts.get(word):
        pieces = [p for p in re.split(r"[.\-]", word) if p]
        return min((_matches(p, unit) for p in pieces), default=0)
    if len(word) < PREFIX_FROM:
        return unit.counts.get(word, 0)
    return sum(n for w, n in unit.counts.items() if w.startswith(word))


def _in_title(word: str, unit: Unit) -> bool:
    return any(w == word or (len(word) >= PREFIX_FROM and w.startswith(word)) for w in unit.title_words)


def opening(text: str) -> str:
    """The first lines of a page or part, as plain as markdown allows: no heading marks, table rules or links'
    addresses, cut at a word near OPENS_CHARS."""
    lines, rows = [], []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|"):
            if not set(line) <= set("|-: "):
                rows.append(" · ".join(cell.strip() for cell in line.strip("|").split("|") if cell.strip()))
            continue
        if not line or line.startswith(("#", "```")):
            continue
        lines.append(line)
        if sum(len(x) for x in lines) > OPENS_CHARS:
            break
    flat = " ".join(lines or rows[1:] or rows)  # a part that is only a table opens with its rows, not its header
    flat = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", flat)
    flat = re.sub(r"^> ?|(?<= )> ", "", flat).replace("**", "")
    if len(flat) > OPENS_CHARS:
        flat = flat[:OPENS_CHARS].rsplit(" ", 1)[0] + "…"
    return flat


def search(library: Library, query: str, limit: int) -> dict[str, Any]:
    wanted = query_words(query)
    scored = []
    for unit in _units(library):
        occurrences = [_matches(w, unit) for w in wanted]
        have = sum(1 for n in occurrences if n)
        if not have:
            continue
        in_title = sum(1 for w, n in zip(wanted, occurrences, strict=True) if n and _in_title(w, unit))
        density = sum(occurrences) / math.sqrt(sum(unit.counts.values()) or 1)
        scored.append(((have, in_title, density), unit))
    best_part: dict[str, int] = {}  # a page's address -> the most words one of its parts has
    for (have, _, _), unit in scored:
        if unit.anchor:
            best_part[unit.page.address] = max(best_part.get(unit.page.address, 0), have)
    kept = [(score, unit) for score, unit in scored
            if unit.anchor or best_part.get(unit.page.address, 0) < score[0]]
    kept.sort(key=lambda item: (-item[0][0], -item[0][1], -item[0][2], item[1].address))
    return {
        "total": len(kept),
        "results": [
            {"page": unit.address, "title": unit.title if not unit.anchor else f"{unit.page.title}: {unit.title}",
             "opens": opening(unit.body)}
            for _, unit in kept[:limit]
        ],
    }
