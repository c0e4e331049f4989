"""A filing document's readable text: EDGAR's HTML (often inline XBRL) without its markup, hidden XBRL header,
scripts and styles; tables read a row a line, cells apart by " | "."""

from __future__ import annotations

import re
from html.parser import HTMLParser

BLOCKS = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "section", "hr",
                    "title", "center", "pre", "blockquote"})
SKIPPED = frozenset({"script", "style", "ix:header", "head"})


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0
        self.hidden = 0  # depth inside an element styled display:none (inline XBRL keeps its facts there)
        self.stack: list[bool] = []  # for each open element: whether it hides what is inside

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.skipping += 1
            return
        style = (dict(attrs).get("style") or "").replace(" ", "").lower()
        hides = "display:none" in style
        if tag not in ("br", "hr", "img", "meta", "link", "input"):
            self.stack.append(hides)
            self.hidden += hides
        if tag in BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self.skipping = max(0, self.skipping - 1)
            return
        if tag not in ("br", "hr", "img", "meta", "link", "input") and self.stack:
            self.hidden -= self.stack.pop()
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skipping and not self.hidden:
            self.parts.append(data)


def filing_text(body: str, content_type: str = "") -> str:
    """The text of a filing document: HTML read as above, plain text (older filings' .txt) as it is."""
    looks_html = "html" in content_type.lower() or re.search(
        r"<\s*(html|body|div|p|table)\b", body[:5000], re.IGNORECASE
    )
    if looks_html:
        parser = _Text()
        parser.feed(body)
        parser.close()
        text = "".join(parser.parts)
    else:
        text = body
    text = text.replace("\xa0", " ")
    lines = [re.sub(r"[ \t]+", " ", line).strip(" |") for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def document_title(body: str) -> str | None:
    match = re.search(r"<title[^>]*>(.*?)</title>", body[:20000], re.IGNORECASE | re.DOTALL)
    if not match:
        return None
    title = re.sub(r"\s+", " ", match.group(1)).strip()
    return title or None
