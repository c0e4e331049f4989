"""Text as the detectors read it: one plain form however the sender dressed it up.

A card number written in full-width digits, with zero-width spaces between its digits, as `4111.1111.1111.1111` or
`4111 / 1111 / 1111 / 1111`, or split between a mail's subject and its text, is still a card number. So before any
detector looks, `normalize` folds the text to one form (Unicode NFKC, every decimal digit to ASCII, every dash,
slash and dot lookalike to its ASCII form, format characters and stray combining marks gone, HTML tags and
entities read as text), and `digit_runs` reads digit groups joined by any separators as one run, across a line
break too, so the subject and text the check joins with a newline read as one.

Offsets the detectors report are into the normalized text, not the original.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

# Dashes, hyphens and minus signs of every script NFKC leaves alone.
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d\u058a\u05be\u30fc"
# Slash and dot lookalikes: fraction and division slashes, middle dots, bullets, leaders.
_SLASHES = "\u2044\u2215\u29f8\uff0f"
_DOTS = "\u00b7\u2022\u2024\u2027\u2219\u22c5\u30fb\uff65\u0387"
_TRANSLATE = {ord(c): "-" for c in _DASHES} | {ord(c): "/" for c in _SLASHES} | {ord(c): "." for c in _DOTS}
_TAG = re.compile(r"<(?:[A-Za-z!/?][^<>]*)>")
_BLOCK_TAG = re.compile(r"<\s*/?\s*(?:br|p|div|tr|li|h[1-6]|table|ul|ol)\b[^<>]*>", re.I)


def normalize(text: str) -> str:
    """The one form detectors read. Line breaks are kept (a detector may care where a line ends)."""
    if not text:
        return ""
    if "<" in text and _TAG.search(text):
        # HTML: a block ends a line, any other tag is nothing (`4111<b></b>1111` is one number).
        text = _TAG.sub("", _BLOCK_TAG.sub("\n", text))
    if "&" in text:
        text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text)
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat == "Cf":  # zero-width spaces and joiners, soft hyphens, direction marks, word joiners
            continue
        if cat in ("Mn", "Me") and out and not out[-1].isalpha():
            # A combining mark on a digit or a symbol (`4̶1̶1̶1̶`) hides nothing from a reader: drop it. On a
            # letter, NFKC has already composed what it could; what is left stays with its letter.
            continue
        if cat == "Nd":
            out.append(str(unicodedata.decimal(ch)))
            continue
        if cat == "Zs":
            out.append(" ")
            continue
        out.append(ch.translate(_TRANSLATE))
    return "".join(out)


# ---------------------------------------------------------------------------------------------------- digit runs

# Between two digit groups: spaces, or one separator (dot, slash, backslash, dash, underscore, bar, comma, colon,
# semicolon) with spaces around it, and one line break before or after it. A comma or a colon joins too: a card
# written `4111,1111,1111,1111` or `4242:4242:…` is one number. What such a run is (a list "4, 12, 18", an amount
# $12,450.00, times 09:30, 11:45) is for each detector to say from its groups and separators, never from the run.
_SEP = r"[./\\\-_|,:;]"
_GAP = rf"(?:[ \t]*{_SEP}[ \t]*(?:\r?\n[ \t]*)?|[ \t]*\r?\n[ \t]*(?:{_SEP}[ \t]*)?|[ \t]+)"
# Not glued to letters in front (INV2026, 1Z999AA1... stay ids); letters right after may be a word run into the
# number ("4111-1111-1111-1111exp 08/28").
_RUN = re.compile(rf"(?<![A-Za-z0-9])\d+(?:{_GAP}\d+)*(?!\d)")
_GROUP = re.compile(r"\d+")


@dataclass(frozen=True)
class Group:
    digits: str
    start: int
    end: int


@dataclass(frozen=True)
class DigitRun:
    start: int
    end: int
    groups: tuple[Group, ...]
    gaps: tuple[str, ...]  # what stands between group k and k + 1

    @property
    def digits(self) -> str:
        return "".join(g.digits for g in self.groups)

    def spans(
        self, lengths: set[int] | frozenset[int], *, starts: Iterable[int] | None = None
    ) -> Iterator[tuple[int, int, str]]:
        """Every stretch of whole groups (i, j inclusive) whose digits add up to one of `lengths`, with its digits;
        only those starting at `starts` if given."""
        longest = max(lengths)
        for i in starts if starts is not None else range(len(self.groups)):
            digits = ""
            for j in range(i, len(self.groups)):
                digits += self.groups[j].digits
                if len(digits) > longest:
                    break
                if len(digits) in lengths:
                    yield i, j, digits

    def separators(self, i: int, j: int) -> list[str]:
        """The separators between groups i..j, a line break beside a separator read as that separator."""
        return [separator(g) for g in self.gaps[i:j]]

    def plainly_joined(self, i: int, j: int) -> bool:
        """Groups i..j are joined only by single spaces or hyphens: the way people write numbers anyway."""
        return all(self.gaps[k] in (" ", "-") for k in range(i, j))


def separator(gap: str) -> str:
    """A gap with a line break in it, as a reader sees it: `-\n` a dash, a bare line break a space. Other gaps are
    as written (" / " is not "/": a date after a number is written so)."""
    if "\n" not in gap:
        return gap
    return gap.strip(" \t\r\n") or " "


def digit_runs(text: str) -> list[DigitRun]:
    """Runs of digit groups joined by any separators, not glued to a letter or digit in front."""
    runs = []
    for m in _RUN.finditer(text):
        groups = tuple(Group(g.group(), m.start() + g.start(), m.start() + g.end()) for g in _GROUP.finditer(m.group()))
        gaps = tuple(text[a.end:b.start] for a, b in zip(groups, groups[1:], strict=False))
        runs.append(DigitRun(m.start(), m.end(), groups, gaps))
    return runs
