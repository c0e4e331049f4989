"""Roadstar's own docs for people and for agents outside: /help/… as HTML, the same address with `.md` as
markdown, /llms.txt (the index, in the llms.txt format), /llms-full.txt (every page in one file) and /tools.json
(every tool as declared).

The docs are the product's public documentation, so none of these asks for a sign-in; nothing in them is the
owner's (tools.json is the registry's declarations, the pages are files in the project and text generated from
those declarations). The pages live in `tools/help/`, which `help.search` and `help.read` read too.

The markdown is Roadstar's own, but a tool's description is still text, so it renders the way docs do
(`pages/mdx.py`): raw HTML escaped, only http(s), mailto and relative links. Links between pages are written
as page addresses (`/tools/mail/#send`), which `help.read` takes as they are; here they point at /help/….
"""

from __future__ import annotations

import json
import re

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe
from markdown_it import MarkdownIt

from pages.mdx import safe_link
from tools.help import generate
from tools.help.library import SECTIONS, Library, Page, library, slug, split_address

PREFIX = "/help"
MARKDOWN = "text/markdown; charset=utf-8"


def page_url(address: str, *, markdown: bool = False) -> str:
    """Where a page is served: /help/tools/mail/ for people, /help/tools/mail.md as markdown."""
    if not markdown:
        return PREFIX + address
    return PREFIX + ("/index" if address == "/" else address.rstrip("/")) + ".md"


def _site_link(href: str, docs: Library, *, markdown: bool) -> str:
    """A link as written in a page, pointed at where its page is served; any other link stays as it is."""
    if not href.startswith("/") or href.startswith("//"):
        return href
    address, part = split_address(href)
    if docs.get(address) is None:
        return href
    return page_url(address, markdown=markdown) + (f"#{part}" if part else "")


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    # markdown-it-py's documented way to choose which links are allowed is to replace this method.
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("link_open", _link_open)
    return md


def _heading_open(self, tokens, idx, options, env):
    # Each heading gets the anchor help.read and search results name a part by (/tools/mail/#send).
    inline = tokens[idx + 1] if idx + 1 < len(tokens) else None
    if inline is not None and inline.type == "inline":
        tokens[idx].attrSet("id", slug(inline.content.replace("`", "")))
    return self.renderToken(tokens, idx, options, env)


def _link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href = token.attrGet("href") or ""
    token.attrSet("href", _site_link(href, env["docs"], markdown=False))
    if href.startswith(("http://", "https://")):
        token.attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


MD = _markdown()

LINK = re.compile(r"\]\((/[^)\s]*)\)")


def as_markdown(page: Page, docs: Library) -> str:
    """The page's markdown with its links pointed at the other pages' markdown."""
    return LINK.sub(lambda m: f"]({_site_link(m.group(1), docs, markdown=True)})", page.text)


def _wants_markdown(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return "text/markdown" in accept and "text/html" not in accept


def _page_or_404(path: str) -> tuple[Library, Page]:
    docs = library()
    address, _ = split_address("/" + path)
    page = docs.get(address) or _section_root(docs, address)
    if page is None:
        raise Http404("There's no page at that address in Roadstar's docs.")
    return docs, page


def _section_root(docs: Library, address: str) -> Page | None:
    """A section's own address (/help/how-it-works/), which has no page of its own: the list of its pages."""
    key = address.strip("/")
    if "/" in key or key not in SECTIONS or not key:
        return None
    pages = [p for p in docs if p.section == key]
    if not pages:
        return None
    title = SECTIONS[key]
    lines = [f"# {title}", "", f"The pages of “{title}”.", ""]
    lines += [f"- [{p.title}]({p.address}): {p.summary}" for p in pages]
    text = "\n".join(lines) + "\n"
    return Page(address=address, title=title, summary=f"The pages of “{title}”.", text=text, generated=True)


def _markdown_response(text: str) -> HttpResponse:
    return HttpResponse(text, content_type=MARKDOWN)


@require_safe
def help_page(request: HttpRequest, path: str = "") -> HttpResponse:
    docs, page = _page_or_404(path)
    if _wants_markdown(request):
        response = _markdown_response(as_markdown(page, docs))
        response["Vary"] = "Accept"
        return response
    body = MD.render(page.text.split("\n", 1)[1] if page.text.startswith("# ") else page.text, {"docs": docs})
    sections = [
        (title, [p for p in docs if p.section == key])
        for key, title in SECTIONS.items()
    ]
    response = render(request, "pages/help.html", {
        "page": page,
        # markdown-it escaped every raw tag and refused unsafe links (above), so its output goes on as it is.
        "body": mark_safe(body),
        "sections": [(title, [(p, page_url(p.address)) for p in pages]) for title, pages in sections if pages],
        "markdown_url": page_url(page.address, markdown=True),
    })
    response["Vary"] = "Accept"
    return response


@require_safe
def help_markdown(request: HttpRequest, path: str) -> HttpResponse:
    docs, page = _page_or_404("" if path == "index" else path)
    return _markdown_response(as_markdown(page, docs))


@require_safe
def llms_txt(request: HttpRequest) -> HttpResponse:
    """The index for agents, in the llms.txt format: a title, a one-line summary, then a list per section."""
    docs, start = _page_or_404("")
    lines = [f"# {start.title}", "", f"> {start.summary}", "",
             ("Every page below is markdown. Inside Roadstar, the help group's tools search and read the same "
             f"pages. Every tool, as declared, is at {request.build_absolute_uri('/tools.json')}; every page in one "
             f"file at {request.build_absolute_uri('/llms-full.txt')}.")]
    for key, title in SECTIONS.items():
        pages = [p for p in docs if p.section == key]
        if not pages:
            continue
        lines += ["", f"## {title}", ""]
        for p in pages:
            url = request.build_absolute_uri(page_url(p.address, markdown=True))
            lines.append(f"- [{p.title}]({url}): {p.summary}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


@require_safe
def llms_full_txt(request: HttpRequest) -> HttpResponse:
    docs = library()
    text = "\n\n---\n\n".join(
        f"<!-- {request.build_absolute_uri(page_url(p.address, markdown=True))} -->\n{as_markdown(p, docs)}"
        for p in docs
    )
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


@require_safe
def tools_json(request: HttpRequest) -> HttpResponse:
    return HttpResponse(json.dumps(generate.tools_json(), indent=1, ensure_ascii=False),
                        content_type="application/json")
