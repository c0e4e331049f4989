"""A doc's MDX, rendered for the owner's page: Markdown plus the few components agents are told about.

What a doc holds (spec/tools/docs.md, and spec/README.md "Where the source lost text" for the names):
Markdown (headings, lists, tables with alignment, bold, links), `<Callout tone="…">…</Callout>`,
`<Figure src="…" caption="…" />`, `<Columns><Column>…</Column></Columns>`, `<MetricGrid>` of label / value /
trend, and `<Chart>` holding one ```vega-lite JSON block with its data inline. Links may be roadstar links,
`[Juniper Dental](roadstar:contact/<id>)`.

Agents write this text, and what they write may carry words from mail or the web, so nothing in it is trusted:
- It is never evaluated. MDX's `{…}` attribute values are read as JSON or a JavaScript *literal* (objects,
  arrays, strings, numbers), never as code; anything else is dropped.
- Raw HTML is escaped (markdown-it with `html` off): only the components above become markup, built here with
  escaped attributes. An unknown component such as `<Tabs>` shows as the text it is.
- Links go to http(s), mailto, a relative address or a roadstar link; a `javascript:` (or any other scheme) link
  stays plain text.
- Images are only the doc's own or Roadstar's: a picture embedded in the doc (`data:image/png;base64,…`, PNG,
  JPEG, GIF or WebP) or one of Roadstar's static files (`/static/…`). An image from any other address would tell
  whoever serves it when the owner reads the doc, and from where, so it is not shown (the page's
  Content-Security-Policy, `img-src 'self' data:`, refuses it too).
- A roadstar link becomes a link to the record's page when the workspace has that record (`Links`); an unknown
  kind, or a record the workspace doesn't have, is plain text.
- A chart's spec reaches the page through `json_script` (a JSON `<script>` element, `<`, `>` and `&` escaped),
  and `static/pages/charts.js` draws it with the vendored vega-embed. Its data must be inline: a spec that
  names an address to load data from, anywhere (`data`, a list of data as Vega writes it, a lookup's `from`, in
  any layer, facet or concatenation), is not drawn. `usermeta` (where vega-embed takes options from the spec
  itself) is dropped.

`render(text, links=…)` returns the HTML and the chart element ids; a problem in one component is shown where
it is and never stops the rest of the doc from rendering.
"""

from __future__ import annotations

import bisect
import html
import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.utils.html import escape, format_html, json_script
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

COMPONENTS = ("Callout", "Figure", "Columns", "Column", "Chart", "MetricGrid", "Metric")
MAX_DEPTH = 12  # components inside components; deeper tags show as text
# What one doc may ask of the parser, so that no text (they are agents' words) makes a page slow to draw: tags
# looked at (a doc has a handful), and how far one tag's attributes may run.
MAX_TAGS = 300
MAX_TAG_LENGTH = 4000
MAX_CHARTS = 20

# Kinds of roadstar links, as the docs how-to lists them (company added: companies have their own page).
LINK_KINDS = ("contact", "company", "email", "file", "invoice", "bill", "agent", "doc", "page", "table", "project")

CALLOUT_TONES = {
    "info": "info", "note": "info", "neutral": "info",
    "tip": "success", "success": "success", "good": "success", "ok": "success",
    "warning": "warning", "warn": "warning", "caution": "warning", "attention": "warning",
    "danger": "danger", "error": "danger", "alert": "danger", "critical": "danger", "important": "danger",
}
CALLOUT_LABELS = {"info": "Note", "success": "Tip", "warning": "Warning", "danger": "Important"}

CHART_FENCES = ("vega-lite", "vegalite", "vl", "json")

# The attributes each component reads; any other (an onClick, a style) is dropped unread.
ATTRIBUTES = {
    "Callout": {"tone", "type", "kind", "title"},
    "Figure": {"src", "alt", "caption"},
    "Columns": set(),
    "Column": set(),
    "Chart": {"spec", "title"},
    "MetricGrid": {"items", "metrics", "data", "values"},
    "Metric": {"label", "name", "value", "trend", "change", "delta", "note", "hint"},
}


class Links(Protocol):
    """Where roadstar links go: `prepare` gets every (kind, id) of the doc at once, then `url` answers each."""

    def prepare(self, refs: set[tuple[str, str]]) -> None: ...

    def url(self, kind: str, id_: str) -> str | None: ...


class NoLinks:
    """Every roadstar link stays plain text."""

    def prepare(self, refs: set[tuple[str, str]]) -> None:
        return None

    def url(self, kind: str, id_: str) -> str | None:
        return None


@dataclass(frozen=True)
class Rendered:
    html: SafeString
    charts: list[str]  # the ids of the chart elements, each with a JSON script of the same id + "-spec"
    problems: list[str]  # what couldn't be shown, as the page says it


# --- links --------------------------------------------------------------------------------------------------

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_LINK_SCHEMES = {"http", "https", "mailto", "roadstar"}
# A picture embedded in the doc: raster types only (an SVG is a document of its own), base64, nothing else.
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}")
# One of Roadstar's static files, after STATIC_URL: plain path segments, never `..` (no way out of /static/).
_STATIC_FILE = re.compile(r"(?:[A-Za-z0-9_\-]+/)*[A-Za-z0-9_\-][A-Za-z0-9_.\-]*")
IMAGES_ALLOWED = "a picture embedded in the doc (data:image/…) or one of Roadstar's own (/static/…)"
_ROADSTAR = re.compile(r"^roadstar:(?://)?([A-Za-z_]+)/([^/?#\s]+)/?$")


def _scheme(url: str) -> str | None:
    match = _SCHEME.match(url.strip())
    return match.group(1).lower() if match else None


def safe_link(url: str) -> bool:
    """A link the page may carry: http(s), mailto, roadstar, or relative (a path, a query, an anchor)."""
    if any(ord(c) < 32 for c in url) or "\\" in url:
        return False
    scheme = _scheme(url)
    return scheme in _LINK_SCHEMES if scheme else True


def _valid_link_or_image(url: str) -> bool:
    # markdown-it asks one question for links and images alike: an embedded picture passes here, and the link
    # renderer keeps a `data:` link as plain text.
    return safe_link(url) or safe_image(url)


def safe_image(url: str) -> bool:
    """An image the page may show: embedded in the doc (data:image/…;base64) or Roadstar's own (/static/…)."""
    url = url.strip()
    if _DATA_IMAGE.fullmatch(url):
        return True
    prefix = "/" + settings.STATIC_URL.strip("/") + "/"
    return url.startswith(prefix) and bool(_STATIC_FILE.fullmatch(url[len(prefix):]))


def roadstar_ref(href: str) -> tuple[str, str] | None:
    """(kind, id) of `roadstar:contact/<id>`, or None when it isn't a roadstar link of that form."""
    match = _ROADSTAR.match(href.strip())
    if not match:
        return None
    return match.group(1).lower(), match.group(2)


# --- Markdown -----------------------------------------------------------------------------------------------


def _markdown() -> MarkdownIt:
    # CommonMark with GFM tables and strikethrough; raw HTML off (escaped). Indented code is off, as in MDX:
    # children of a component are often indented, and must read as text, not code.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.disable("code")
    # markdown-it-py's documented way to choose which links are allowed is to replace this method.
    md.validateLink = _valid_link_or_image  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("link_close", _link_close)
    md.add_render_rule("image", _image)
    md.add_render_rule("fence", _fence)
    return md


def _link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href = token.attrGet("href") or ""
    stack = env.setdefault("_mdx_links", [])
    if not safe_link(href):  # an embedded picture's address, valid for an image, never a link
        stack.append(False)
        return ""
    if _scheme(href) == "roadstar":
        ref = roadstar_ref(href)
        url = env["_mdx_resolver"].url(*ref) if ref and ref[0] in LINK_KINDS else None
        if ref is None or url is None:
            stack.append(False)  # plain text: neither this tag nor its closing one is written
            return ""
        token.attrSet("href", url)
        token.attrSet("class", f"ref ref--{ref[0]}")
    elif _scheme(href) in ("http", "https"):
        token.attrSet("rel", "noopener noreferrer nofollow")
    stack.append(True)
    return self.renderToken(tokens, idx, options, env)


def _link_close(self, tokens, idx, options, env):
    stack = env.setdefault("_mdx_links", [])
    if stack and not stack.pop():
        return ""
    return self.renderToken(tokens, idx, options, env)


def _image(self, tokens, idx, options, env):
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = token.attrGet("src") or ""
    if not safe_image(src):
        return format_html('<span class="mdx-image-missing">{}</span>', alt or "image not shown")
    title = token.attrGet("title")
    return format_html(
        '<img src="{}" alt="{}"{} loading="lazy">', src, alt,
        format_html(' title="{}"', title) if title else "",
    )


def _fence(self, tokens, idx, options, env):
    token = tokens[idx]
    info = (token.info or "").strip().split()
    language = format_html(' class="language-{}"', info[0]) if info and re.fullmatch(r"[\w+.-]+", info[0]) else ""
    return format_html("<pre><code{}>{}</code></pre>\n", language, token.content)


MD = _markdown()


def _walk_links(tokens):
    for token in tokens:
        if token.type == "link_open":
            yield token.attrGet("href") or ""
        if token.children:
            yield from _walk_links(token.children)


# --- the component tree -------------------------------------------------------------------------------------


@dataclass
class Component:
    name: str
    attrs: dict
    children: list = field(default_factory=list)  # of str (MDX text) and Component
    problems: list[str] = field(default_factory=list)


@dataclass
class _Text:
    """Markdown text of one component (or the doc), parsed, its links collected before anything renders."""

    source: str
    tokens: list


_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_NAME = "|".join(COMPONENTS)
_TAG_START = re.compile(rf"<(/?)({_NAME})(?=[\s/>])")
_ATTR_NAME = re.compile(r"[A-Za-z_:][-A-Za-z0-9_:.]*")


def _segments(text: str) -> list[tuple[str, str]]:
    """The text cut into ("text", …) and ("fence", …) pieces: a fenced code block is never read for tags."""
    pieces: list[tuple[str, str]] = []
    buffer: list[str] = []
    fence: tuple[str, int] | None = None
    block: list[str] = []
    for line in text.splitlines(keepends=True):
        if fence is None:
            match = _FENCE_OPEN.match(line.rstrip("\r\n"))
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                if buffer:
                    pieces.append(("text", "".join(buffer)))
                    buffer = []
                fence = (match.group(1)[0], len(match.group(1)))
                block = [line]
            else:
                buffer.append(line)
        else:
            block.append(line)
            stripped = line.strip()
            char, length = fence
            if stripped and set(stripped) == {char} and len(stripped) >= length:
                pieces.append(("fence", "".join(block)))
                fence, block = None, []
    if block:  # a fence never closed runs to the end, as in CommonMark
        pieces.append(("fence", "".join(block)))
    if buffer:
        pieces.append(("text", "".join(buffer)))
    return pieces


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where inline code spans are (`` `<Callout>` `` is text about a tag, not a tag), in order.

    A run of n backticks opens a span that the next run of exactly n closes; each run is looked up by its length,
    so a text full of backticks still costs n log n, not n².
    """
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    by_length: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(runs):
        by_length.setdefault(b - a, []).append(i)
    spans, i = [], 0
    while i < len(runs):
        a, b = runs[i]
        same = by_length[b - a]
        at = bisect.bisect_right(same, i)
        if at == len(same):
            i += 1
            continue
        closing = same[at]
        spans.append((a, runs[closing][1]))
        i = closing + 1
    return spans


def _in_spans(spans: list[tuple[int, int]], starts: list[int], at: int) -> bool:
    k = bisect.bisect_right(starts, at) - 1
    return k >= 0 and spans[k][0] <= at < spans[k][1]


def _skip_string(text: str, i: int) -> int:
    """The index just past the string literal starting at text[i] (a quote), or -1 if it never ends."""
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return -1


def _read_braces(text: str, i: int) -> int:
    """The index just past the `{…}` starting at text[i], braces balanced and strings skipped; -1 if unbalanced."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"'`":
            i = _skip_string(text, i)
            if i < 0:
                return -1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


@dataclass
class _Tag:
    name: str
    closing: bool
    self_closing: bool
    attrs: dict
    problems: list[str]
    end: int


def _read_tag(text: str, start: int) -> _Tag | None:
    """The component tag at text[start] ("<"), or None when what's there isn't a whole tag (then it is text)."""
    match = _TAG_START.match(text, start)
    if not match:
        return None
    text = text[: start + MAX_TAG_LENGTH]
    closing, name = bool(match.group(1)), match.group(2)
    i = match.end()
    attrs: dict = {}
    problems: list[str] = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return None
        if text.startswith("/>", i):
            return None if closing else _Tag(name, False, True, attrs, problems, i + 2)
        if text[i] == ">":
            return _Tag(name, closing, False, attrs, problems, i + 1)
        if closing:
            return None
        attr = _ATTR_NAME.match(text, i)
        if not attr:
            return None
        key, i = attr.group(), attr.end()
        j = i
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text) or text[j] != "=":
            if key in ATTRIBUTES[name]:
                attrs[key] = True  # a bare attribute, as in JSX, is true
            continue
        j += 1
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text):
            return None
        if text[j] in "\"'":
            end = _skip_string_plain(text, j)
            if end < 0:
                return None
            if key in ATTRIBUTES[name]:
                attrs[key] = html.unescape(text[j + 1 : end - 1])
            i = end
        elif text[j] == "{":
            end = _read_braces(text, j)
            if end < 0:
                return None
            if key in ATTRIBUTES[name]:
                try:
                    attrs[key] = parse_literal(text[j + 1 : end - 1])
                except ValueError as error:
                    problems.append(f"{name}'s {key} couldn't be read ({error})")
            i = end
        else:
            return None


def _skip_string_plain(text: str, i: int) -> int:
    # JSX attribute strings have no backslash escapes: they end at the next same quote.
    end = text.find(text[i], i + 1)
    return -1 if end < 0 else end + 1


def parse(text: str) -> list:
    """The doc as a tree: a list of MDX text (str) and Components, each component's children likewise."""
    root: list = []
    stack: list[Component] = []

    def children() -> list:
        return stack[-1].children if stack else root

    def add_text(piece: str) -> None:
        if not piece:
            return
        siblings = children()
        if siblings and isinstance(siblings[-1], str):
            siblings[-1] += piece
        else:
            siblings.append(piece)

    looked = 0
    for kind, piece in _segments(text):
        if kind == "fence":
            add_text(piece)
            continue
        spans = _code_spans(piece)
        span_starts = [a for a, _ in spans]
        at = 0
        for match in _TAG_START.finditer(piece):
            start = match.start()
            if start < at or _in_spans(spans, span_starts, start):
                continue
            looked += 1
            if looked > MAX_TAGS:
                break
            if start > 0 and piece[start - 1] == "\\":
                continue
            tag = _read_tag(piece, start)
            if tag is None:
                continue
            if tag.closing:
                if not any(open_.name == tag.name for open_ in stack):
                    continue  # a closing tag with nothing to close is text
                add_text(piece[at:start])
                while stack:  # closes what was left open inside it too
                    closed = stack.pop()
                    if closed.name == tag.name:
                        break
            else:
                if len(stack) >= MAX_DEPTH:
                    continue
                add_text(piece[at:start])
                component = Component(tag.name, tag.attrs, problems=tag.problems)
                children().append(component)
                if not tag.self_closing:
                    stack.append(component)
            at = tag.end
        add_text(piece[at:])
    return root


# --- JavaScript literals in attributes ----------------------------------------------------------------------


class _LiteralReader:
    """Reads a JSON or JavaScript literal (objects with bare or quoted keys, arrays, strings in any quotes,
    numbers, true/false/null), with trailing commas. Nothing is evaluated: anything else is a ValueError."""

    _NUMBER = re.compile(r"[-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
    _IDENT = re.compile(r"[A-Za-z_$][\w$]*")
    _WORDS = {"true": True, "false": False, "null": None, "undefined": None}

    def __init__(self, text: str):
        self.text, self.i = text, 0

    def read(self):
        value = self.value()
        self.space()
        if self.i != len(self.text):
            raise ValueError(f"unexpected {self.text[self.i:self.i + 12]!r}")
        return value

    def space(self) -> None:
        while self.i < len(self.text):
            if self.text[self.i].isspace():
                self.i += 1
            elif self.text.startswith("//", self.i):
                end = self.text.find("\n", self.i)
                self.i = len(self.text) if end < 0 else end
            elif self.text.startswith("/*", self.i):
                end = self.text.find("*/", self.i + 2)
                if end < 0:
                    raise ValueError("a comment never ends")
                self.i = end + 2
            else:
                return

    def value(self, depth: int = 0):
        if depth > 40:
            raise ValueError("nested too deep")
        self.space()
        if self.i >= len(self.text):
            raise ValueError("a value is missing")
        c = self.text[self.i]
        if c in "\"'`":
            return self.string()
        if c == "{":
            return self.object(depth)
        if c == "[":
            return self.array(depth)
        number = self._NUMBER.match(self.text, self.i)
        if number and number.group() not in ("+", "-"):
            self.i = number.end()
            raw = number.group().replace("_", "")
            return float(raw) if any(ch in raw for ch in ".eE") else int(raw)
        ident = self._IDENT.match(self.text, self.i)
        if ident and ident.group() in self._WORDS:
            self.i = ident.end()
            return self._WORDS[ident.group()]
        raise ValueError(f"only plain values are read, not {self.text[self.i:self.i + 12]!r}")

    def string(self) -> str:
        quote = self.text[self.i]
        end = _skip_string(self.text, self.i)
        if end < 0:
            raise ValueError("a string never ends")
        body = self.text[self.i + 1 : end - 1]
        if quote == "`" and "${" in body:
            raise ValueError("template strings with ${…} aren't read")
        self.i = end
        if quote == '"':
            return json.loads(f'"{body}"')
        # Single-quoted and template strings: the same escapes as JSON, with the quote itself escapable.
        body = body.replace("\\" + quote, quote).replace('"', '\\"')
        return json.loads(f'"{body}"'.replace("\n", "\\n"))

    def key(self) -> str:
        self.space()
        c = self.text[self.i : self.i + 1]
        if c in ("\"", "'"):
            return self.string()
        ident = self._IDENT.match(self.text, self.i) or self._NUMBER.match(self.text, self.i)
        if not ident:
            raise ValueError(f"a key is missing at {self.text[self.i:self.i + 12]!r}")
        self.i = ident.end()
        return ident.group()

    def object(self, depth: int) -> dict:
        self.i += 1
        result: dict[str, Any] = {}
        while True:
            self.space()
            if self.text.startswith("}", self.i):
                self.i += 1
                return result
            key = self.key()
            self.space()
            if not self.text.startswith(":", self.i):
                raise ValueError(f"':' is missing after {key!r}")
            self.i += 1
            result[key] = self.value(depth + 1)
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("}", self.i):
                raise ValueError("',' or '}' is missing")

    def array(self, depth: int) -> list:
        self.i += 1
        result: list[Any] = []
        while True:
            self.space()
            if self.text.startswith("]", self.i):
                self.i += 1
                return result
            result.append(self.value(depth + 1))
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("]", self.i):
                raise ValueError("',' or ']' is missing")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a chart can draw")


def parse_literal(text: str):
    """A `{…}` attribute's value: JSON, or a JavaScript literal; never code. ValueError when it is neither."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError:
        pass
    try:
        return _LiteralReader(text).read()
    except (ValueError, IndexError, RecursionError) as error:
        raise ValueError(str(error)) from None


# --- rendering ----------------------------------------------------------------------------------------------


class _Renderer:
    def __init__(self, links: Links, id_prefix: str):
        self.links = links
        self.id_prefix = id_prefix
        self.env: dict = {"_mdx_resolver": links}
        self.charts: list[str] = []
        self.problems: list[str] = []

    # Parsing every piece of Markdown first lets the links of the whole doc be resolved at once.
    def prepare(self, nodes: list) -> list:
        prepared = []
        for node in nodes:
            if isinstance(node, str):
                prepared.append(self.markdown(node))
            else:
                node.children = self.prepare(node.children)
                prepared.append(node)
        return prepared

    def markdown(self, source: str) -> _Text:
        source = textwrap.dedent(source)
        return _Text(source, MD.parse(source, self.env) if source.strip() else [])

    def refs(self, nodes: list, found: set) -> set:
        for node in nodes:
            if isinstance(node, _Text):
                for href in _walk_links(node.tokens):
                    ref = roadstar_ref(href) if _scheme(href) == "roadstar" else None
                    if ref and ref[0] in LINK_KINDS:
                        found.add(ref)
            else:
                self.refs(node.children, found)
        return found

    def render(self, nodes: list) -> str:
        return "".join(self.node(node) for node in nodes)

    def node(self, node) -> str:
        if isinstance(node, _Text):
            return MD.renderer.render(node.tokens, MD.options, self.env) if node.tokens else ""
        problems = "".join(self.problem(p) for p in node.problems)
        method = getattr(self, node.name.lower())
        return problems + method(node)

    def problem(self, text: str) -> SafeString:
        self.problems.append(text)
        return format_html('<p class="mdx-problem" role="note">{}</p>\n', text)

    # --- the components ---

    def callout(self, node: Component) -> str:
        raw = node.attrs.get("tone") or node.attrs.get("type") or node.attrs.get("kind") or "info"
        tone = CALLOUT_TONES.get(str(raw).strip().lower(), "info")
        title = _text(node.attrs.get("title"))
        heading = format_html('<p class="callout__title">{}</p>', title) if title else format_html(
            '<p class="visually-hidden">{}</p>', CALLOUT_LABELS[tone]
        )
        return format_html(
            '<aside class="callout callout--{}" role="note">{}<div class="callout__body">{}</div></aside>\n',
            tone, heading, mark_safe(self.render(node.children)),
        )

    def figure(self, node: Component) -> str:
        src = _text(node.attrs.get("src"))
        alt = _text(node.attrs.get("alt"))
        caption_text = _text(node.attrs.get("caption"))
        caption = self.render(node.children).strip()
        if caption_text:
            caption = format_html("{}{}", caption_text, mark_safe(caption)) if caption else escape(caption_text)
        if src and safe_image(src):
            image = format_html('<img src="{}" alt="{}" loading="lazy">', src, alt or caption_text)
        elif not src:
            image = self.problem("An image isn't shown: it has no address.")
        else:
            image = self.problem(f"An image isn't shown: a doc shows only {IMAGES_ALLOWED}, not {_shown(src)}.")
        figcaption = format_html("<figcaption>{}</figcaption>", mark_safe(caption)) if caption else ""
        return format_html('<figure class="figure">{}{}</figure>\n', image, figcaption)

    def columns(self, node: Component) -> str:
        inner = "".join(
            self.node(child) if isinstance(child, Component) and child.name == "Column"
            else self.column(Component("Column", {}, [child]))
            for child in node.children
            if not (isinstance(child, _Text) and not child.source.strip())
        )
        return format_html('<div class="columns">{}</div>\n', mark_safe(inner))

    def column(self, node: Component) -> str:
        return format_html('<div class="column">{}</div>\n', mark_safe(self.render(node.children)))

    def metricgrid(self, node: Component) -> str:
        metrics: list[dict] = []
        for key in ("items", "metrics", "data", "values"):
            value = node.attrs.get(key)
            if isinstance(value, list):
                metrics += [m for m in value if isinstance(m, dict)]
                break
        for child in node.children:
            if isinstance(child, Component) and child.name == "Metric":
                metrics.append(child.attrs)
            elif isinstance(child, _Text):
                metrics += _metric_lines(child.source)
        if not metrics:
            return self.problem("A MetricGrid has no figures to show.")
        return format_html(
            '<dl class="metric-grid">{}</dl>\n', mark_safe("".join(_metric(m) for m in metrics[:12]))
        )

    def metric(self, node: Component) -> str:
        return format_html('<dl class="metric-grid">{}</dl>\n', mark_safe(_metric(node.attrs)))

    def chart(self, node: Component) -> str:
        if len(self.charts) >= MAX_CHARTS:
            return self.problem(f"A chart isn't drawn: a doc draws up to {MAX_CHARTS}.")
        spec_text, caption_nodes = None, []
        for child in node.children:
            if spec_text is None and isinstance(child, _Text) and (found := _chart_fence(child.tokens)):
                spec_text, rest = found
                caption_nodes.append(_Text(child.source, rest))
            else:
                caption_nodes.append(child)
        spec = node.attrs.get("spec")
        if spec is None and spec_text is None:
            bare = "".join(c.source for c in node.children if isinstance(c, _Text)).strip()
            if bare.startswith("{"):
                spec_text, caption_nodes = bare, [c for c in node.children if not isinstance(c, _Text)]
        title = _text(node.attrs.get("title"))
        caption = self.render(caption_nodes).strip()
        if spec is None:
            if spec_text is None:
                return self.problem("A chart isn't drawn: it holds no ```vega-lite block.")
            try:
                spec = parse_literal(spec_text)
            except ValueError as error:
                return self.problem(f"A chart isn't drawn: its vega-lite JSON has an error ({error}).")
        problem = chart_problem(spec)
        if problem:
            return self.problem(f"A chart isn't drawn: {problem}.")
        spec = {k: v for k, v in spec.items() if k != "usermeta"}
        element_id = f"{self.id_prefix}-{len(self.charts) + 1}"
        self.charts.append(element_id)
        label = title or _text(spec.get("title") if isinstance(spec.get("title"), str) else None) or "Chart"
        heading = format_html('<p class="chart__title">{}</p>', title) if title else ""
        figcaption = format_html("<figcaption>{}{}</figcaption>", heading, mark_safe(caption)) if (
            heading or caption
        ) else ""
        return format_html(
            '<figure class="chart">{}<div class="chart__view" id="{}" data-chart="{}" role="img" aria-label="{}">'
            '<p class="chart__loading muted">Drawing the chart…</p></div>{}</figure>\n',
            json_script(spec, f"{element_id}-spec"), element_id, f"{element_id}-spec", label, figcaption,
        )


def _chart_fence(tokens: list) -> tuple[str, list] | None:
    """The first vega-lite (or json) fence's text among these tokens, and the tokens without it."""
    for i, token in enumerate(tokens):
        if token.type == "fence":
            language = (token.info or "").strip().split()[:1]
            if language and language[0].lower() in CHART_FENCES:
                return token.content, tokens[:i] + tokens[i + 1 :]
    return None


def chart_problem(spec) -> str | None:
    """Why a vega-lite spec isn't drawn, or None. Its data must be inline: nothing is fetched from an address."""
    if not isinstance(spec, dict):
        return "its vega-lite JSON is not an object"
    fetches = _fetches(spec)
    if fetches:
        return f"its data must be inline (values), not fetched from {fetches}"
    return None


# Where a spec says what data to use: vega-lite's `data` (top level, any layer, facet or concatenation), a lookup
# transform's `from`, and Vega's list of data sets (`data: [{name, url}]`), which vega-embed draws as Vega when
# the spec's $schema says so.
_DATA_KEYS = ("data", "from")


def _fetches(value, depth: int = 0) -> str | None:
    """The first address a spec would load data from, wherever it says so, or None."""
    if depth > 60:
        return "a spec nested too deep"
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _DATA_KEYS:
                for source in item if isinstance(item, list) else [item]:
                    if isinstance(source, dict) and "url" in source:
                        return _shown(source["url"])
            found = _fetches(item, depth + 1)
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _fetches(item, depth + 1)
            if found:
                return found
    return None


def _shown(address) -> str:
    """An address as a problem line quotes it: short, whatever it was (a Vega `url` may be a signal object)."""
    text = address if isinstance(address, str) else json.dumps(address)
    return text if len(text) <= 80 else text[:79] + "…"


def _text(value) -> str:
    if value is None or value is True or value is False:
        return ""
    return str(value).strip()


_METRIC_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<label>[^:|]+?)\s*:\s*(?P<value>[^(]+?)\s*(?:\((?P<trend>[^)]*)\))?\s*$"
)


def _metric_lines(source: str) -> list[dict]:
    """Figures written as lines in a MetricGrid: `- Revenue: $12,400 (+8%)`."""
    metrics = []
    for line in source.splitlines():
        match = _METRIC_LINE.match(line) if len(line) <= 300 else None
        if match:
            metrics.append({
                "label": match.group("label").strip("*_ "),
                "value": match.group("value").strip("*_ "),
                "trend": (match.group("trend") or "").strip(),
            })
    return metrics


def _metric(attrs: dict) -> str:
    label = _text(attrs.get("label") if attrs.get("label") is not None else attrs.get("name"))
    value = _text(attrs.get("value"))
    trend = _text(next((attrs[k] for k in ("trend", "change", "delta") if attrs.get(k) is not None), None))
    note = _text(attrs.get("note") or attrs.get("hint"))
    trend_html = ""
    if trend:
        direction = "up" if trend[0] in "+↑▲" else "down" if trend[0] in "-−–↓▼" else "flat"
        trend_html = format_html('<dd class="metric__trend metric__trend--{}">{}</dd>', direction, trend)
    return format_html(
        '<div class="metric"><dt class="metric__label">{}</dt><dd class="metric__value">{}</dd>{}{}</div>',
        label, value, trend_html, format_html('<dd class="metric__note">{}</dd>', note) if note else "",
    )


def render(text: str | None, *, links: Links | None = None, id_prefix: str = "chart") -> Rendered:
    """The doc's MDX as safe HTML for the page, with the ids of the charts it draws."""
    renderer = _Renderer(links or NoLinks(), id_prefix)
    tree = renderer.prepare(parse(text or ""))
    renderer.links.prepare(renderer.refs(tree, set()))
    body = renderer.render(tree)
    return Rendered(html=mark_safe(body), charts=renderer.charts, problems=renderer.problems)
