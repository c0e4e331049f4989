"""Roadstar's own docs as one library of pages: the hand-written ones (markdown files under `pages/`, package data
of this package) and the ones generated from the registry (every tool group, `generate.py`).

A page's address is its path as the docs link it: `/` for the start page, `/how-it-works/the-owners-yes/`,
`/tools/mail/`. A part is one `## ` section of a page, addressed `/tools/mail/#send`. The people's view serves a
page at `/help` + its address (and `.md` for the markdown); `help.read` and `help.search` use the addresses as
they are. Each hand-written file opens with `# Title`, a blank line and one line saying what the page is for
(the line `/llms.txt` shows).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from django.conf import settings

from checks import reasons
from core.registry import Registry
from tools import registry
from tools.help import generate

PAGES_DIR = Path(__file__).parent / "pages"

# The sections of the docs, in the order /llms.txt and the start page list them, by an address's first segment.
SECTIONS = {
    "": "Start here",
    "how-it-works": "How it works",
    "tools": "Tools",
    "use-cases": "Use cases",
    "reference": "Reference",
}

# The order to read the hand-written pages in, where it isn't their addresses' order.
READING_ORDER = (
    "/how-it-works/agents/", "/how-it-works/chats-and-threads/", "/how-it-works/hand-offs/", "/how-it-works/tools/",
    "/how-it-works/the-owners-yes/", "/how-it-works/home-and-asks/", "/how-it-works/routines-and-skills/",
    "/how-it-works/notes-and-memory/", "/how-it-works/connecting-apps/", "/how-it-works/computers-and-apps/",
    "/reference/limits/", "/reference/errors/", "/reference/models/",
)

# Where a generated table goes in a hand-written page: the models page's prices are read from settings, the
# errors page's reasons from the check's own.
MODELS_MARK = "<!-- models -->"
REASONS_MARK = "<!-- reasons -->"


@dataclass(frozen=True)
class Part:
    anchor: str  # "send", as in /tools/mail/#send
    title: str
    text: str  # the part's markdown, its heading first


@dataclass(frozen=True)
class Page:
    address: str
    title: str
    summary: str
    text: str
    generated: bool = False
    parts: tuple[Part, ...] = field(default=(), compare=False)

    @property
    def section(self) -> str:
        # A page at the top (/, /getting-started/) is in "Start here"; the others are in their folder's section.
        parts = self.address.strip("/").split("/")
        return parts[0] if len(parts) > 1 or parts[0] in SECTIONS else ""

    @cached_property
    def lead(self) -> str:
        """The page before its first part: its title, what it is for, and its opening."""
        return self.text.split("\n## ", 1)[0]

    def part(self, anchor: str) -> Part | None:
        return next((p for p in self.parts if p.anchor == anchor), None)


def slug(heading: str) -> str:
    """A heading's anchor: "send" stays "send", "How to use it" becomes "how-to-use-it"."""
    return re.sub(r"[^a-z0-9_]+", "-", heading.lower()).strip("-")


def _split_parts(text: str) -> tuple[Part, ...]:
    parts = []
    chunks = re.split(r"(?m)^(?=## )", text)
    for chunk in chunks[1:]:
        heading = chunk.splitlines()[0][3:].strip()
        parts.append(Part(anchor=slug(heading), title=heading, text=chunk.rstrip() + "\n"))
    return tuple(parts)


def _page(address: str, text: str, *, generated: bool) -> Page:
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ValueError(f"the docs page {address} must open with '# Title'")
    title = lines[0][2:].strip()
    summary = next((line.strip() for line in lines[1:] if line.strip()), "")
    return Page(address=address, title=title, summary=summary, text=text, generated=generated,
                parts=_split_parts(text))


def _address_of(path: Path) -> str:
    relative = path.relative_to(PAGES_DIR).with_suffix("")
    return "/" if relative.as_posix() == "index" else f"/{relative.as_posix()}/"


def _models_table() -> str:
    rows = ["| Model id | Input | Cached input | Output |", "| --- | --- | --- | --- |"]
    for model_id, config in settings.ROADSTAR_MODELS.items():
        prices = config["prices"]
        default = " (default)" if model_id == DEFAULT_MODEL else ""
        rows.append(f"| `{model_id}`{default} | ${prices['input']:g} | ${prices['cached_input']:g} | "
                    f"${prices['output']:g} |")
    return "\n".join(rows)


def _reasons_table() -> str:
    rows = ["| Outcome | Reason |", "| --- | --- |"]
    rows += [f"| {reasons.outcome_of(reason)} | {reason} |" for reason in reasons.PRIORITY]
    return "\n".join(rows)


DEFAULT_MODEL = "gpt-6.1-terra"  # an agent's model when make_agent names none (agents.models.Agent.model)


def _hand_written() -> dict[str, str]:
    texts = {}
    for path in sorted(PAGES_DIR.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        text = text.replace(MODELS_MARK, _models_table()).replace(REASONS_MARK, _reasons_table())
        texts[_address_of(path)] = text
    return texts


class Library:
    """Every page, by address, in the order the docs list them."""

    def __init__(self, pages: dict[str, Page]) -> None:
        order = list(SECTIONS)
        # Tools: all tools, then browse/find/use, then the groups in browse's order; the rest by address.
        reading = [*READING_ORDER, "/tools/", "/tools/catalog/", "/tools/agent-tools/",
                   *[f"/tools/{g}/" for g in registry.SPEC_GROUPS]]
        self.pages = dict(sorted(pages.items(), key=lambda item: (
            order.index(item[1].section) if item[1].section in order else len(order),
            reading.index(item[0]) if item[0] in reading else len(reading),
            item[0],
        )))

    def get(self, address: str) -> Page | None:
        return self.pages.get(address)

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages.values())


@dataclass(frozen=True)
class PageSource:
    """Pages an app above this layer writes from its own declarations (the agent tools live in agents/, which
    registers one in agents/hooks.py): `pages()` returns markdown by address, called when the library is built."""

    name: str
    pages: Callable[[], dict[str, str]]


PAGE_SOURCES: Registry[str, PageSource] = Registry("docs page source", PageSource)


_lock = threading.Lock()
_built: dict[tuple[Any, ...], Library] = {}


def library() -> Library:
    """The docs as the registry declares its tools now. Built once per set of tools (a test that takes a group
    out of the registry gets pages without it)."""
    # Keyed by the declarations themselves, so a declaration replaced (as tests do) gets its page written again.
    key = (
        tuple((name, id(group)) for name, group in registry.GROUPS.items()),
        tuple((name, id(tool)) for name, tool in registry.TOOLS.items()),
        tuple((name, id(source)) for name, source in PAGE_SOURCES.items()),
    )
    with _lock:
        if key not in _built:
            pages = {a: _page(a, t, generated=False) for a, t in _hand_written().items()}
            generated = generate.generated_pages()
            for source in PAGE_SOURCES.values():
                generated.update(source.pages())
            for address, text in generated.items():
                if address in pages:
                    raise ValueError(f"the docs page {address} is both written by hand and generated")
                pages[address] = _page(address, text, generated=True)
            _built.clear()
            _built[key] = Library(pages)
        return _built[key]


def split_address(address: str) -> tuple[str, str]:
    """A page's address and part as given in a link, a search result or a URL: "/tools/mail/#send",
    "tools/mail", "/help/tools/mail.md#send" and "https://…/help/tools/mail/" all name /tools/mail/ (and send)."""
    text = address.strip()
    text = re.sub(r"^https?://[^/]+", "", text)
    text, _, part = text.partition("#")
    text = text.split("?", 1)[0]
    if text.startswith("/help/") or text == "/help":
        text = text[len("/help"):]
    text = text.removesuffix(".md")
    text = "/" + text.strip("/")
    if text in ("/index", "/"):
        return "/", part
    return text + "/", part
