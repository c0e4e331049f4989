"""An agent's words as the owner reads them: a `roadstar:contact/<id>` link an agent wrote (the records' link form,
pages/mdx.py) becomes a link to that record's page under the words it labels, never the raw address; a kind with no
page of its own keeps only its words. The pages scope every record by workspace, so another workspace's id opens
a "not found" page and nothing of it."""

from __future__ import annotations

import re

from django import template
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from core.inputs import as_uuid

register = template.Library()

_LINKED = re.compile(r"\[([^\]\n]{1,200})\]\(\s*roadstar:([a-z_]+)/([0-9A-Za-z-]{1,64})\s*\)", re.IGNORECASE)
_BARE = re.compile(r"<?roadstar:([a-z_]+)/([0-9A-Za-z-]{1,64})>?", re.IGNORECASE)
PAGES = {"contact": "pages:contact", "company": "pages:company", "doc": "pages:doc"}
WORDS = {"contact": "the contact", "company": "the company", "doc": "the doc", "project": "the project",
         "agent": "the agent", "email": "the email", "file": "the file", "invoice": "the invoice", "page": "the page",
         "table": "the table", "event": "the meeting", "meeting": "the meeting"}

def _href(kind: str, id_: str) -> str | None:
    name = PAGES.get(kind.lower())
    found = as_uuid(id_)
    return reverse(name, args=[found]) if name and found is not None else None

def record_links(text: str) -> str:
    """The text, escaped, with roadstar links made links to the records' pages (or their words only)."""
    out, at = [], 0
    for match in _LINKED.finditer(text):
        out.append(_bare(text[at:match.start()]))
        label, href = match.group(1), _href(match.group(2), match.group(3))
        out.append(f'<a href="{escape(href)}">{escape(label)}</a>' if href else str(escape(label)))
        at = match.end()
    out.append(_bare(text[at:]))
    return "".join(out)

def _bare(text: str) -> str:
    def one(match) -> str:
        kind = match.group(1).lower()
        href, words = _href(kind, match.group(2)), WORDS.get(kind, "the record")
        return f'<a href="{escape(href)}">{escape(words)}</a>' if href else str(escape(words))

    out, at = [], 0
    for match in _BARE.finditer(text):
        out.append(str(escape(text[at:match.start()])))
        out.append(one(match))
        at = match.end()
    out.append(str(escape(text[at:])))
    return "".join(out)

@register.filter
def owner_text(text) -> SafeString:
    """|linebreaksbr, with the agents' record links as links: every character of the text is escaped first."""
    if not text:
        return mark_safe("")
    return mark_safe(record_links(str(text)).replace("\r\n", "\n").replace("\n", "<br>"))
