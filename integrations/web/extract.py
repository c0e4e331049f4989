"""A fetched page's main text, and the passages of it that bear on an objective.

The text: trafilatura (its main-content extraction, tables kept, navigation, footers and comments left out) for
HTML, pypdf for PDFs, plain text as it is; at most MAX_TEXT characters a page.

The passages: the text is cut into passages (its paragraphs; a long one into runs of sentences), each scored with
BM25 against the objective's words (lower-cased, common words left out, plural and verb endings folded) with the
passages of every page read in the same call as the collection, so a word every page uses counts for little. A
page keeps the passages that score at least a third of its best, at most MAX_PASSAGES and MAX_SELECTED characters,
in the page's own order; a page where none of the objective's words occur gives no text. Deterministic, with no
model: the same pages and objective give the same passages.
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections import Counter
from dataclasses import dataclass

import trafilatura
from lxml import html as lxml_html
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from core.errors import ToolError
from integrations.web.fetch import Fetched

logger = logging.getLogger(__name__)

MAX_TEXT = 30_000
MAX_PASSAGES = 8
MAX_SELECTED = 6_000
PASSAGE_TARGET = 600  # a long paragraph is cut into runs of sentences of about this many characters
MAX_PDF_PAGES = 200

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other
    our ours out over own same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would
    you your yours find tell know get give show page pages web site website information info please""".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])")


@dataclass
class PageText:
    url: str
    title: str | None
    text: str


def page_text(page: Fetched) -> PageText:
    """The page's title and main text, or ToolError when nothing readable is in it."""
    if page.content_type == "application/pdf":
        title, text = _pdf_text(page)
    elif page.content_type == "text/plain":
        title, text = None, page.body.decode(page.encoding or "utf-8", errors="replace")
    else:
        title, text = _html_text(page)
    text = re.sub(r"[ \t\r\f\v]+", " ", text.replace("\x00", ""))
    text = re.sub(r"\n\s*\n\s*(\n\s*)+", "\n\n", text).strip()
    if not text:
        raise ToolError("unsupported", f"{page.url} has no text Roadstar can read (it may be built by scripts, or "
                                       "be an image).")
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT].rsplit(" ", 1)[0] + " […]"
    return PageText(url=page.url, title=title, text=text)


def _html_text(page: Fetched) -> tuple[str | None, str]:
    try:
        document = trafilatura.bare_extraction(page.body, url=page.url, with_metadata=True, include_tables=True,
                                               include_comments=False, output_format="python")
    except Exception:  # hostile HTML must not end the call: its plain text below is read instead
        logger.warning("trafilatura failed on %s", page.url, exc_info=True)
        document = None
    title = (getattr(document, "title", None) or None) if document is not None else None
    text = (getattr(document, "text", None) or "") if document is not None else ""
    if not text.strip():
        # A short page trafilatura finds no article in (a contact page, opening hours): its visible text.
        try:
            tree = lxml_html.document_fromstring(page.body)
        except (ValueError, lxml_html.etree.ParserError):
            return title, ""
        for node in tree.xpath("//script|//style|//noscript|//template"):
            node.drop_tree()
        title = title or (tree.findtext(".//title") or "").strip() or None
        body = tree.find("body")
        text = "\n".join(line.strip() for line in (body if body is not None else tree).itertext() if line.strip())
    return title, text


def _pdf_text(page: Fetched) -> tuple[str | None, str]:
    try:
        reader = PdfReader(io.BytesIO(page.body))
        title = (reader.metadata.title if reader.metadata else None) or None
        parts: list[str] = []
        for number, pdf_page in enumerate(reader.pages):
            if number >= MAX_PDF_PAGES or sum(map(len, parts)) > MAX_TEXT:
                break
            parts.append(pdf_page.extract_text() or "")
    except (PyPdfError, ValueError, KeyError, TypeError) as error:
        raise ToolError(
            "unsupported", f"{page.url} is a PDF Roadstar can't read ({error.__class__.__name__})."
        ) from None
    return (str(title) if title else None), "\n\n".join(parts)


# --- passages that bear on an objective -----------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Text as comparable words: lower-cased, without common words, endings folded (opening/opens/opened → open)."""
    return [_fold(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1 or w.isdigit()]


def _fold(word: str) -> str:
    word = word.replace("’", "'").removesuffix("'s")
    if word.isdigit() or len(word) <= 4:
        return word
    for ending in ("ing", "ies", "ied", "es", "ed", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            return stem + "y" if ending in ("ies", "ied") else stem
    return word


def passages_of(text: str) -> list[str]:
    out = []
    for paragraph in (p.strip() for p in text.split("\n")):
        if not paragraph:
            continue
        if len(paragraph) <= PASSAGE_TARGET * 1.5:
            out.append(paragraph)
            continue
        run = ""
        for sentence in _SENTENCE_END.split(paragraph):
            if run and len(run) + len(sentence) > PASSAGE_TARGET:
                out.append(run)
                run = ""
            run = f"{run} {sentence}".strip()
        if run:
            out.append(run)
    return out


def select_passages(pages: list[PageText], objective: str) -> list[PageText]:
    """Each page with only the passages that bear on the objective (BM25 over all the pages' passages)."""
    query = list(dict.fromkeys(words(objective)))
    split = [passages_of(p.text) for p in pages]
    bags = [[Counter(words(passage)) for passage in passages] for passages in split]
    every = [bag for page_bags in bags for bag in page_bags]
    if not query or not every:
        return [PageText(url=p.url, title=p.title, text="") for p in pages]
    average = sum(sum(b.values()) for b in every) / len(every) or 1.0
    holding = {term: sum(1 for b in every if term in b) for term in query}
    idf = {t: math.log(1 + (len(every) - n + 0.5) / (n + 0.5)) for t, n in holding.items()}
    chosen = []
    for page, passages, page_bags in zip(pages, split, bags, strict=True):
        scores = [_bm25(bag, query, idf, average) for bag in page_bags]
        best = max(scores, default=0.0)
        if best <= 0:
            chosen.append(PageText(url=page.url, title=page.title, text=""))
            continue
        ranked = sorted((i for i, s in enumerate(scores) if s >= best / 3), key=lambda i: (-scores[i], i))
        keep: list[int] = []
        size = 0
        for i in ranked[:MAX_PASSAGES]:
            if keep and size + len(passages[i]) > MAX_SELECTED:
                continue
            keep.append(i)
            size += len(passages[i])
        chosen.append(PageText(url=page.url, title=page.title,
                               text="\n\n".join(passages[i] for i in sorted(keep))))
    return chosen


def rank_texts(texts: list[str], objective: str) -> list[float]:
    """BM25 scores of short texts (search snippets) against the objective, with the texts as the collection."""
    query = list(dict.fromkeys(words(objective)))
    bags = [Counter(words(t)) for t in texts]
    if not query or not bags:
        return [0.0 for _ in texts]
    average = sum(sum(b.values()) for b in bags) / len(bags) or 1.0
    idf = {t: math.log(1 + (len(bags) - n + 0.5) / (n + 0.5)) for t in query
           for n in [sum(1 for b in bags if t in b)]}
    return [_bm25(bag, query, idf, average) for bag in bags]


def _bm25(bag: Counter, query: list[str], idf: dict[str, float], average: float, k1: float = 1.2,
          b: float = 0.75) -> float:
    length = sum(bag.values())
    score = 0.0
    for term in query:
        count = bag.get(term, 0)
        if count:
            score += idf[term] * count * (k1 + 1) / (count + k1 * (1 - b + b * length / average))
    return score
