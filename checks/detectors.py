"""Detectors for what must never leave the business: passwords, sign-in and door codes, card numbers, bank account
numbers, national ID numbers, API keys and secrets.

Each detector looks for the thing's own structure (a checksum, an issuer's prefix and length, a country's IBAN
length) or for a cue word right next to it, never for "a long number": phone numbers, invoice and order numbers,
ZIP+4, tracking numbers, timestamps and a bank's routing number (it is public) are everyday business mail and must
go. A national ID number whose form is ambiguous (nine digits could be a SIN, a TFN, a BSN or an order reference)
is one only next to a cue word ("SIN", "NI number", "social", "TFN", "PPS", ...); one whose form is its own (an
Italian codice fiscale, a UK National Insurance number with its suffix) needs none. The business's own payment
details, which the owner sets, may go: a finding that is part of one of them (ignoring separators and letter case)
is dropped.

Everything is read after `checks.normalize.normalize` (full-width digits, zero-width characters, any separators
between digit groups), so offsets in a `Finding` are into the normalized text.

To add a detector: write `_find_<thing>(text) -> Iterator[Finding]`, add it to `_DETECTORS`, and test it both ways
in tests/checks/test_detectors.py.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from checks import national_ids as ids
from checks.national_ids import luhn_valid
from checks.normalize import DigitRun, digit_runs, normalize

__all__ = ["Finding", "card_issuer", "find_sensitive", "iban_valid", "luhn_valid"]


@dataclass(frozen=True)
class Finding:
    kind: str  # card, iban, bank_account, ssn, national_id, password, sign_in_code, api_key, secret
    value: str
    start: int
    end: int
    scheme: str = ""  # for a national ID: which country's number (ca_sin, uk_nino, ...)


def find_sensitive(text: str, *, allowed: Iterable[str] = ()) -> list[Finding]:
    """Everything sensitive in `text`, less what is part of the business's own `allowed` payment details."""
    text = normalize(text)
    if not text:
        return []
    own = [_squash(normalize(a)) for a in allowed if a]
    found: dict[tuple[int, int], Finding] = {}
    for detector in _DETECTORS:
        for f in detector(text):
            if f.kind in _MAY_BE_OWN and any(_squash(f.value) in o for o in own):
                continue
            # Two detectors may see the same characters (a key id is also an assignment's value): keep the first.
            found.setdefault((f.start, f.end), f)
    return sorted(found.values(), key=lambda f: f.start)


def _squash(s: str) -> str:
    return re.sub(r"[\s\-./]", "", s).lower()


# ---------------------------------------------------------------------------------------------------- cards

def _prefix_in(digits: str, width: int, low: int, high: int) -> bool:
    return len(digits) >= width and low <= int(digits[:width]) <= high


def card_issuer(digits: str) -> str | None:
    """The issuer whose prefix and length the number has, or None. Prefix tables as the networks publish them."""
    n = len(digits)
    if digits.startswith("4") and n in (13, 16, 19):
        return "visa"
    if n == 16 and (_prefix_in(digits, 2, 51, 55) or _prefix_in(digits, 4, 2221, 2720)):
        return "mastercard"
    if n == 15 and digits[:2] in ("34", "37"):
        return "amex"
    if 16 <= n <= 19 and (
        digits.startswith("6011") or _prefix_in(digits, 3, 644, 649) or digits.startswith("65")
        or _prefix_in(digits, 6, 622126, 622925)
    ):
        return "discover"
    if 16 <= n <= 19 and _prefix_in(digits, 4, 3528, 3589):
        return "jcb"
    if 14 <= n <= 19 and (_prefix_in(digits, 3, 300, 305) or digits[:2] in ("36", "38", "39")):
        return "diners"
    if 16 <= n <= 19 and _prefix_in(digits, 4, 2200, 2204):
        return "mir"
    if 16 <= n <= 19 and digits.startswith("62"):
        return "unionpay"
    if 13 <= n <= 19 and digits[:4] in ("5018", "5020", "5038", "5893", "6304", "6759", "6761", "6762", "6763"):
        return "maestro"
    return None


def _card_grouping(run: DigitRun, i: int, j: int) -> bool:
    """Groups i..j are written the way a card is. Joined by single spaces or hyphens, any grouping goes (issuers
    print 4-4-4-4, 4-6-5, 4-6-4 and more). Joined by anything else (`4111.1111.1111.1111`, `4111 / 1111 / ...`, a
    line break between subject and text), the groups must be a card's: fours, sixes or eights and a last group,
    or one digit at a time. Two phone numbers (3-3-4 / 3-3-4) or a date and a time are not."""
    if run.plainly_joined(i, j):
        return True
    sizes = [len(g.digits) for g in run.groups[i:j + 1]]
    gaps = run.gaps[i:j]
    # Commas, colons and semicolons are separators like any other (`4111,1111,1111,1111`, `3782/822463/10005`, a
    # line break between subject and text): what counts is the groups' shape. Several separators are one way of
    # writing only when each is one character ("4242.4242,4242.4242"), not "4712-2375-8673 / 6% done".
    one_way = all(len(g) == 1 for g in gaps) or len(set(run.separators(i, j))) == 1
    if not one_way:
        return False
    if all(n in (4, 6, 8) for n in sizes[:-1]) or set(sizes) == {1}:
        return True
    # In pairs ("40 12 88 …", "60,11,11,…"), with one separator throughout: times written 09:30,11:45 start with 0
    # or 1 and are never a card's prefix, and a mix of separators is a list.
    return set(sizes) == {2} and len(set(run.separators(i, j))) == 1


_CARD_LENGTHS = frozenset(range(13, 20))


def _find_cards(text: str) -> Iterator[Finding]:
    for run in digit_runs(text):
        # A card can sit in a longer run ("invoice 1042 4929 3817 ..."), so try every stretch of whole groups.
        # Every issuer's numbers start with 2 to 6: no other group can begin one.
        starts = [i for i, g in enumerate(run.groups) if g.digits[0] in "23456"]
        for i, j, digits in run.spans(_CARD_LENGTHS, starts=starts):
            if card_issuer(digits) and luhn_valid(digits) and _card_grouping(run, i, j):
                yield Finding("card", digits, run.groups[i].start, run.groups[j].end)


# ---------------------------------------------------------------------------------------------------- IBAN

# Lengths from the SWIFT IBAN registry.
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
    "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
    "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

# The country may stand apart from its check digits ("GB 33 BUKB …") when written in capitals ("no 12 …" is a word).
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])(?:([A-Za-z]{2})|([A-Z]{2})[ \t])(\d{2})")
_IBAN_GAP = re.compile(r"[ \t]*[\-./,:;]?[ \t]*(?:\r?\n[ \t]*)?")


def iban_valid(iban: str) -> bool:
    iban = re.sub(r"[\s\-./]", "", iban).upper()
    if len(iban) != IBAN_LENGTHS.get(iban[:2], -1) or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def _find_ibans(text: str) -> Iterator[Finding]:
    for m in _IBAN_START.finditer(text):
        length = IBAN_LENGTHS.get((m.group(1) or m.group(2)).upper())
        if not length:
            continue
        # Walk the characters, allowing one space or hyphen between them, until the country's length is reached.
        chars: list[str] = []
        i = m.start()
        while i < len(text) and len(chars) < length:
            ch = text[i]
            if ch.isalnum():
                chars.append(ch)
                i += 1
                continue
            # Between its characters, one separator (space, dash, dot, slash, comma, colon, semicolon) with spaces
            # around it and up to one line break: an IBAN over two lines, or split between subject and text.
            gap = _IBAN_GAP.match(text, i)
            if not (chars and gap and gap.end() < len(text) and text[gap.end()].isalnum()):
                break
            i = gap.end()
        if len(chars) == length and not (i < len(text) and text[i].isalnum()) and iban_valid("".join(chars)):
            yield Finding("iban", "".join(chars).upper(), m.start(), i)


# ---------------------------------------------------------------------------------------------------- bank numbers

_ACCOUNT_CUE = (r"(?:checking|savings|bank|current|deposit)\s+account|account\s*(?:number|no\.?|num|#)|acct\.?|a/c"
                r"|acc\.?\s*(?:number|no\.?|num|#)")
_BARE_ACCOUNT_CUE = r"account|acc"
# Up to a few filler words between the cue and the number: "account number is 004471290531", "acct no.: 1234".
_FILLER = r"(?:\s*(?:number|no\.?|num|#|is|:|=|-|of|code|\(\w+\))\s*){0,4}\s*"
_NUMBER = r"(?P<n>\d(?:[ \-]?\d){5,16})(?![\d])"
# After an explicit cue ("account number:"), the number written with commas, colons or slashes between its groups.
_SPLIT_NUMBER = r"(?P<s>\d{2,}(?:\s*[,:;/.]\s*\d{2,}){1,5})(?![\d])"
_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+\.\d{1,2}")
_BANK_CONTEXT = re.compile(
    r"\b(bank|routing|aba|checking|savings|wire|transfer|ach|iban|swift|bic|sort code|bsb|transit|deposit|refund"
    r"|pay(?:ment)?s?)\b",
    re.I,
)


def _find_bank_numbers(text: str) -> Iterator[Finding]:
    # A routing number, sort code, BSB or transit number alone names a bank's branch: it is printed on every cheque
    # and may go. The account number is what must not.
    for m in re.finditer(rf"\b(?:{_ACCOUNT_CUE}){_FILLER}(?:{_NUMBER}|{_SPLIT_NUMBER})", text, re.I):
        n = "n" if m.group("n") else "s"
        if n == "s" and (_AMOUNT.fullmatch(m.group("s")) or not 6 <= len(re.sub(r"\D", "", m.group("s"))) <= 17):
            continue  # "account balance: 12,450.00" is money, "acct 12/34" no account number
        yield Finding("bank_account", re.sub(r"\D", "", m.group(n)), m.start(n), m.end(n))
    # A bare "account 7720193844" is a bank account only where the talk is of banks and payments.
    for m in re.finditer(rf"\b(?:{_BARE_ACCOUNT_CUE})\b{_FILLER}{_NUMBER}", text, re.I):
        window = text[max(0, m.start() - 80): m.end() + 80]
        if _BANK_CONTEXT.search(window):
            yield Finding("bank_account", re.sub(r"\D", "", m.group("n")), m.start("n"), m.end("n"))


# ---------------------------------------------------------------------------------------------------- national IDs

# Where an ID written with letters may be broken up (between its parts, as people write it): a space, a dash, a dot
# or a slash, or nothing.
_S = r"[ .\-/]?"
_EDGE_L, _EDGE_R = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"


@dataclass(frozen=True)
class _Scheme:
    name: str
    valid: Callable[[str], bool]
    lengths: frozenset[int] = frozenset()  # all digits: found in digit runs of these lengths
    form: re.Pattern[str] | None = None  # with letters (or a shape of its own): found by this pattern
    # Its form is its own: a valid one is an ID without a cue, unless a word such as "order" or "part" labels it.
    plain: Callable[[str, str], bool] | None = None
    kind: str = "national_id"
    # No check digit to go by (a passport, a driver's licence): written in one block, never a date.
    loose: bool = False
    # Where the scheme's rules go beyond its shape (issued prefixes, no checksum), what its cue word is enough for.
    cued_valid: Callable[[str], bool] | None = None
    # The number as its validator takes it, from what the form matched (default: letters and digits, upper case).
    compact: Callable[[str], str] | None = None


def _nino_plain(raw: str, compact: str) -> bool:
    # Written as HMRC prints it, upper case and with its suffix letter: AB 12 34 56 C, AB123456C.
    return (raw.upper() == raw and len(compact) == 9
            and bool(re.fullmatch(r"[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]", raw)))


def _cf_plain(raw: str, compact: str) -> bool:
    return raw == compact  # sixteen characters in one block, as every Italian card and form shows it


_CF_CHARS = r"[A-Za-z]{6}[0-9LMNP-Vlmnp-v]{2}[A-Za-z][0-9LMNP-Vlmnp-v]{2}[A-Za-z][0-9LMNP-Vlmnp-v]{3}[A-Za-z]"
_SCHEMES = (
    _Scheme("us_ssn", ids.us_ssn_valid, frozenset({9}), kind="ssn"),
    _Scheme("us_itin", ids.us_itin_valid, frozenset({9})),
    _Scheme("ca_sin", ids.ca_sin_valid, frozenset({9})),
    # Letters as HMRC prints them, capitals: "on 12 34 56" is a preposition and a number.
    # Letters in any case are found; written in lower case ("ni number: jh 48 29 17 b") it is one next to its cue
    # only (`plain` wants capitals).
    _Scheme("uk_nino", ids.uk_nino_valid, form=re.compile(
        rf"{_EDGE_L}[A-Za-z]{{2}}{_S}(?:\d{{6}}|\d\d([ .\-/])\d\d\1\d\d)(?:{_S}[A-Da-d])?{_EDGE_R}"),
            plain=_nino_plain,
            # Next to "NI number", HMRC's specimen QQ 12 34 56 C is written as one too: the letters go unchecked.
            cued_valid=lambda s: bool(re.fullmatch(r"[A-Z]{2}\d{6}[A-D]|QQ\d{6}", s))),
    _Scheme("uk_nhs", ids.uk_nhs_valid, frozenset({10})),
    _Scheme("ie_ppsn", ids.ie_ppsn_valid,
            form=re.compile(rf"{_EDGE_L}\d{{7}}{_S}[A-Wa-w](?:{_S}[ABHWTXabhwtx])?{_EDGE_R}")),
    _Scheme("au_tfn", ids.au_tfn_valid, frozenset({9})),
    _Scheme("au_medicare", ids.au_medicare_valid, frozenset({10, 11})),
    _Scheme("nz_ird", ids.nz_ird_valid, frozenset({8, 9})),
    _Scheme("in_aadhaar", ids.in_aadhaar_valid, frozenset({12})),
    _Scheme("in_pan", ids.in_pan_valid, form=re.compile(rf"{_EDGE_L}[A-Z]{{5}}{_S}\d{{4}}{_S}[A-Z]{_EDGE_R}")),
    _Scheme("sg_nric", ids.sg_nric_valid, form=re.compile(rf"{_EDGE_L}[STFG]{_S}\d{{7}}{_S}[A-Z]{_EDGE_R}")),
    _Scheme("es_dni", ids.es_dni_valid, form=re.compile(
        rf"{_EDGE_L}(?:\d{{8}}|\d\d\.\d{{3}}\.\d{{3}}){_S}[A-Za-z]{_EDGE_R}")),
    _Scheme("es_nie", ids.es_nie_valid, form=re.compile(
        rf"{_EDGE_L}[XYZxyz]{_S}(?:\d{{7}}|\d\.\d{{3}}\.\d{{3}}){_S}[A-Za-z]{_EDGE_R}")),
    _Scheme("it_codice_fiscale", ids.it_codice_fiscale_valid,
            form=re.compile(rf"{_EDGE_L}{_CF_CHARS}{_EDGE_R}|{_EDGE_L}[A-Za-z]{{3}} ?[A-Za-z]{{3}} ?[0-9]{{2}}[A-Za-z]"
                            rf"[0-9]{{2}} ?[A-Za-z][0-9]{{3}}[A-Za-z]{_EDGE_R}"), plain=_cf_plain),
    # Sex, year, month, department (2A and 2B for Corsica), commune, order, key: "1 85 05 78 006 084 91".
    _Scheme("fr_nir", ids.fr_nir_valid, form=re.compile(
        rf"{_EDGE_L}[1-478]{_S}\d\d{_S}\d\d{_S}(?:\d\d|2[ABab]){_S}\d{{3}}{_S}\d{{3}}{_S}\d\d{_EDGE_R}")),
    _Scheme("be_national_number", ids.be_national_number_valid, frozenset({11})),
    _Scheme("de_steuer_id", ids.de_steuer_id_valid, frozenset({11})),
    _Scheme("nl_bsn", ids.nl_bsn_valid, frozenset({8, 9})),
    _Scheme("pl_pesel", ids.pl_pesel_valid, frozenset({11})),
    _Scheme("se_personnummer", ids.se_personnummer_valid, frozenset({10, 12})),
    _Scheme("fi_hetu", ids.fi_hetu_valid,
            form=re.compile(rf"{_EDGE_L}\d{{6}}[-+A-FU-Ya-fu-y]\d{{3}}[0-9A-Ya-y]{_EDGE_R}"),
            # The sign between date and number is the century: it stays.
            compact=lambda raw: raw.upper()),
    _Scheme("no_fodselsnummer", ids.no_fodselsnummer_valid, frozenset({11})),
    _Scheme("dk_cpr", ids.dk_cpr_valid, frozenset({10})),
    _Scheme("za_id", ids.za_id_valid, frozenset({13})),
    # No checksum is printed on a passport or a driver's licence: with its cue word right before it, a number of
    # their shape is one.
    _Scheme("passport", lambda s: sum(c.isdigit() for c in s) >= 6, frozenset({6, 7, 8, 9}), loose=True,
            form=re.compile(rf"{_EDGE_L}[A-Z]{{1,2}}\d{{6,9}}[A-Z]?{_EDGE_R}")),
    _Scheme("driver_licence", lambda s: sum(c.isdigit() for c in s) >= 6 or (
        sum(c.isdigit() for c in s) >= 4 and sum(c.isalpha() for c in s) >= 1), frozenset(range(6, 14)), loose=True,
            form=re.compile(rf"{_EDGE_L}[A-Z0-9](?:[A-Z0-9]|-(?=[A-Z0-9])){{5,20}}{_EDGE_R}")),
)
_CHECKED = frozenset(s.name for s in _SCHEMES if s.name not in ("passport", "driver_licence"))
_BY_LENGTH = {n: [s for s in _SCHEMES if n in s.lengths] for n in range(6, 14)}
_ID_LENGTHS = frozenset(n for n, schemes in _BY_LENGTH.items() if schemes)


def _cue(ci: str = "", cs: str = "") -> re.Pattern[str]:
    """A cue: words in any letter case (`ci`), and acronyms only in capitals (`cs`: "SIN", not the word "sin")."""
    parts = [f"(?i:{ci})"] if ci else []
    parts += [cs] if cs else []
    # A plural or a possessive is the same cue: "SINs", "the employees' NI numbers", "TFN's".
    return re.compile(rf"(?<![A-Za-z])(?:{'|'.join(parts)})(?:['’]?s|['’])?(?![A-Za-z])")


_NO = r"(?:\s*(?:number|no\.?|num|nr\.?|#))?"
_NUMBER_WORD = r"\s*(?:number|no\.?|num|nr\.?|#)"
# Each cue, the schemes it points at, and whether it is a word of its own or one that means other things too
# ("NHS appointment", "IRD return", "Medicare rebate"): such a cue counts only right before the number, with
# nothing but "number", "is", ":" between ("NHS 943 476 5919", "IRD: 49-091-850").
# "Social security" is the US SSN and, in English, France's NIR too.
_CUE_TABLE: tuple[tuple[re.Pattern[str], frozenset[str] | None, bool], ...] = (
    (_cue(rf"ssn|ss\s*#|ss\s+(?:no\.?|number)|social\s+security{_NO}|soc\.?\s*sec\.?{_NO}"),
     frozenset({"us_ssn", "us_itin", "fr_nir"}), False),
    (_cue(rf"itin|individual\s+taxpayer\s+identification{_NO}"), frozenset({"us_itin"}), False),
    # "sin" in lower case is a word, but not as a label ("sin:", "sin no.", "sin" alone on its line).
    (_cue(rf"social\s+insurance{_NO}|num[ée]ro\s+d['’]assurance\s+sociale|sin(?=\s*[:#]|{_NUMBER_WORD}|[ \t]*\n)",
          r"SIN|S\.I\.N\.?|NAS"),
     frozenset({"ca_sin"}), False),
    # "NI number", "ni no:", "Ni No." in any case: with "number" or "no" after it, "ni" is no other word.
    (_cue(rf"national\s+insurance{_NO}|nino|ni{_NUMBER_WORD}|n\.i\.{_NUMBER_WORD}"),
     frozenset({"uk_nino"}), False),
    (_cue(cs=r"NI|N\.I\."), frozenset({"uk_nino"}), True),
    (_cue(rf"nhs{_NUMBER_WORD}|chi\s+number"), frozenset({"uk_nhs"}), False),
    (_cue(r"nhs"), frozenset({"uk_nhs"}), True),
    (_cue(rf"ppsn?{_NO}|p\.p\.s\.?{_NO}|personal\s+public\s+service{_NO}"), frozenset({"ie_ppsn"}), False),
    (_cue(rf"tfn|tax\s+file{_NO}"), frozenset({"au_tfn"}), False),
    (_cue(rf"medicare\s+card{_NO}|medicare{_NUMBER_WORD}"), frozenset({"au_medicare"}), False),
    (_cue(r"medicare"), frozenset({"au_medicare"}), True),
    (_cue(rf"inland\s+revenue{_NUMBER_WORD}|ird{_NUMBER_WORD}"), frozenset({"nz_ird"}), False),
    (_cue(cs=r"IRD"), frozenset({"nz_ird"}), True),
    (_cue(rf"aadhaa?r(?:\s+card)?{_NO}|uidai"), frozenset({"in_aadhaar"}), False),
    (_cue(rf"permanent\s+account\s+number|pan\s+card{_NO}"), frozenset({"in_pan"}), False),
    (_cue(cs=r"PAN"), frozenset({"in_pan"}), True),
    (_cue(rf"nric{_NO}"), frozenset({"sg_nric"}), False),
    (_cue(cs=rf"FIN{_NO}|IC{_NO}"), frozenset({"sg_nric"}), True),
    (_cue(r"documento\s+nacional(?:\s+de\s+identidad)?|n[úu]mero\s+de\s+identi\w+", r"DNI|NIE|NIF"),
     frozenset({"es_dni", "es_nie"}), False),
    (_cue(r"codice\s+fiscale"), frozenset({"it_codice_fiscale"}), False),
    (_cue(cs=r"CF|C\.F\."), frozenset({"it_codice_fiscale"}), True),
    (_cue(r"insee|s[ée]curit[ée]\s+sociale|num[ée]ro\s+de\s+s[ée]cu\w*|carte\s+vitale"), frozenset({"fr_nir"}), False),
    (_cue(cs=r"NIR"), frozenset({"fr_nir"}), True),
    (_cue(r"steuer[\s\-]?id\w*|steuerliche\s+identifikationsnummer|identifikationsnummer", r"IdNr\.?"),
     frozenset({"de_steuer_id"}), False),
    (_cue(r"bsn|burger\s*service\s*nummer|sofi[\s\-]?nummer|citizen\s+service\s+number"), frozenset({"nl_bsn"}), False),
    (_cue(r"rijksregister\w*|registre\s+national|num[ée]ro\s+national|national\s+(?:register|registry)\s+number"
          r"|national\s+number", r"NISS|INSZ"), frozenset({"be_national_number"}), False),
    (_cue(cs=r"NN"), frozenset({"be_national_number"}), True),
    (_cue(r"pesel"), frozenset({"pl_pesel"}), False),
    (_cue(r"person(?:nummer|nr\.?)|samordningsnummer|personal\s+identity\s+number"),
     frozenset({"se_personnummer", "no_fodselsnummer", "dk_cpr"}), False),
    (_cue(r"f[øo]dselsnummer|d[\s\-]nummer"), frozenset({"no_fodselsnummer"}), False),
    (_cue(r"cpr[\s\-]?(?:nummer|number|nr\.?|no\.?)"), frozenset({"dk_cpr"}), False),
    (_cue(cs=r"CPR"), frozenset({"dk_cpr"}), True),
    (_cue(r"hetu|henkil[öo]tunnus|personal\s+identity\s+code"), frozenset({"fi_hetu"}), False),
    (_cue(rf"(?:south\s+african|sa)\s+id(?:entity)?{_NO}"), frozenset({"za_id"}), False),
    (_cue(rf"passport{_NO}"), frozenset({"passport"}), True),
    (_cue(rf"driver['’]?s['’]?\s+licen[cs]e{_NO}|driving\s+licen[cs]e{_NO}", r"DL\s*#|DL\s+(?:no\.?|number)"),
     frozenset({"driver_licence"}), True),
    # Cues for an ID number of any country.
    (_cue(rf"national\s+(?:id|identity|identification)(?:\s+card)?{_NO}|identity\s+(?:card\s+)?number"
          rf"|(?:personal|government|citizen|civil)\s+(?:id|identification|identity)(?:\s+card)?{_NO}"
          rf"|id\s+card{_NUMBER_WORD}|id{_NUMBER_WORD}|tax\s+(?:id|identification){_NO}|tax\s+number"
          rf"|taxpayer\s+id\w*{_NO}",
          r"TIN|ID#"), None, False),
    # "my social is ...", "Social: ...": social security or insurance, whichever the number is.
    (re.compile(r"(?i:social)(?=\s*(?:[:#]|is\b|was\b|number\b|no\b))"),
     frozenset({"us_ssn", "ca_sin", "fr_nir"}), False),
)

# Words that say a number is something else: an order, a phone, an account. Between a cue and its number they
# break the link ("TFN not needed; booking 123 456 782"); before a plain-form ID or a generic cue ("Order ID
# number ...") they say it is no ID.
_OTHER = (
    r"order|invoice|inv|booking|reservation|case|ticket|ref|reference|tracking|shipment|parcel|po|purchase|"
    r"confirmation|transaction|receipt|account|acct|phone|tel|telephone|mobile|cell|fax|whatsapp|routing|sort|"
    r"member|membership|policy|claim|serial|part|sku|item|product|model|batch|lot|flight|voucher|coupon|promo|"
    r"discount|employee|staff|vat|abn|acn|ein|gst|registration|reg|company|job|quote|estimate|unit|room|suite|call|dial|"
    r"ship|shipping|deliver|delivery|address|zip|postcode|postal"
)
_RELABEL = re.compile(rf"(?i:(?<![A-Za-z])(?:{_OTHER})(?![A-Za-z]))")
_WHO_ELSE = re.compile(rf"(?i:(?<![A-Za-z])(?:{_OTHER}|customer|client|patient|student|user|vendor|supplier|"
                       rf"device|session|meeting|app|product|tax\s+office|our|business|employer|federal)(?![A-Za-z]))")
# A sentence ends at ". " and its kin, but not after "No." or "N.I.": "SIN No. 046 454 286" is one thought.
_LABEL_BEFORE = re.compile(rf"{_WHO_ELSE.pattern}\s*(?i:number|no\.?|num|#|id|ref|code)?\s*[:#.\-]?\s*$")
_SENTENCE_END = re.compile(r"(?<!\bno)(?<!\bnr)(?<!\bnum)(?<!\bst)(?<!\bdr)(?<!\bmr)(?<!\bms)(?<!\b[A-Za-z])"
                           r"[.!?;](?=\s)|\n[ \t]*\n", re.I)
# Between a cue and a number with no check digit, only words that say "this is it": "passport no.: X1234567".
_TIGHT = re.compile(r"[\s:#.\-–(),]*(?:(?:number|no|num|nr|is|was|of|my|her|his|their|your|the|card|reads|id)"
                    r"\b[\s:#.\-–(),]*)*", re.I)
_AFTER = re.compile(
    r"\s*[(\[,\-–—]?\s*(?:(?:is|was|that's|that\s+is|which\s+is|being)\s+)?"
    r"(?:(?:my|her|his|their|your|our|the|a|an)\s+)?(?:[A-Za-z]+['’]s\s+)?$"
)


def _cued(text: str, start: int, end: int, scheme: _Scheme, cues: list[tuple[int, int, frozenset[str], bool]]) -> bool:
    """A cue for `scheme` stands just before the number (up to a few words, none of them a number or a word that
    relabels it, in the same sentence) or just after it ("046 454 286 (SIN)", "... is her SIN")."""
    for cue_start, cue_end, schemes, tight in cues:
        if scheme.name not in schemes:
            continue
        if cue_end <= start and start - cue_end <= 48:
            between = text[cue_end:start]
            if scheme.loose or tight:
                if _TIGHT.fullmatch(between):
                    return True
            elif not re.search(r"\d", between) and not _RELABEL.search(between) and not _SENTENCE_END.search(between):
                return True
        elif cue_start >= end and cue_start - end <= 32 and _AFTER.match(text[end:cue_start]):
            return True
    return False


def _labelled_otherwise(text: str, start: int) -> bool:
    """A word like "order" or "part" labels it: `Part AB123456C`, `SKU no. AB123456C` is a part number."""
    return bool(_LABEL_BEFORE.search(text[max(0, start - 32):start]))


def _cue_spans(text: str) -> list[tuple[int, int, frozenset[str], bool]]:
    spans = []
    for pattern, schemes, tight in _CUE_TABLE:
        for m in pattern.finditer(text):
            if schemes is None and _WHO_ELSE.search(text[max(0, m.start() - 20):m.start()].split("\n")[-1]):
                continue  # "Order ID number", "customer ID #", "our tax ID": not a person's ID
            spans.append((m.start(), m.end(), schemes or _CHECKED, tight))
    return spans


def _id_candidates(text: str, cues: list[tuple[int, int, frozenset[str], bool]]
                   ) -> Iterator[tuple[_Scheme, int, int, str, str, bool]]:
    """(scheme, start, end, raw, compact, strictly valid) for every number of every scheme in the text that is
    valid by the scheme's rules, or by what its cue word is enough for. An all-digit number is an ID only next to
    a cue, so only digit runs within reach of one are tried (a long table of numbers costs nothing): up to 48
    characters after a cue or after a run so tried (a list under one cue), or 32 before a cue."""
    ends, starts = sorted(c[1] for c in cues), sorted(c[0] for c in cues)

    def within(points: list[int], low: int, high: int) -> bool:
        i = bisect.bisect_left(points, low)
        return i < len(points) and points[i] <= high

    reach = -10**9  # the end of the last run tried
    for run in digit_runs(text):
        if not (run.start <= reach + 48 or within(ends, run.start - 48, run.start + 2)
                or within(starts, run.end - 2, run.end + 32)):
            continue
        reach = run.end
        if text[max(0, run.start - 1):run.start] == "+":
            continue  # +61 2 9876 5432: a phone number with its country code
        # A cue stands before the number's first groups or after its last: the stretches in between are not tried.
        n = len(run.groups)
        first_groups = range(n) if n <= 8 else [*range(4), *range(n - 8, n)]
        for i, j, digits in run.spans(_ID_LENGTHS, starts=first_groups):
            if n > 8 and 4 <= i and j < n - 4:
                continue
            start, end = run.groups[i].start, run.groups[j].end
            raw = text[start:end]
            if not _id_grouping(run, i, j) or _DATE_IN.search(raw):
                continue
            for scheme in _BY_LENGTH[len(digits)]:
                if scheme.loose and i != j:
                    continue
                if scheme.valid(digits):
                    yield scheme, start, end, raw, digits, True
    for scheme in _SCHEMES:
        if scheme.form is None:
            continue
        for m in scheme.form.finditer(text):
            compact = scheme.compact(m.group()) if scheme.compact else re.sub(r"[^A-Za-z0-9]", "", m.group()).upper()
            if scheme.valid(compact):
                yield scheme, m.start(), m.end(), m.group(), compact, True
            elif scheme.cued_valid and scheme.cued_valid(compact):
                yield scheme, m.start(), m.end(), m.group(), compact, False


# A date inside a run ("see 7/25/2020 / 04/06/2029") is a date, whatever its digits would validate as.
_DATE_IN = re.compile(
    r"(?<!\d)(?:\d{1,2}[./\-]\d{1,2}[./\-](?:19|20)\d\d|(?:19|20)\d\d[./\-]\d{1,2}[./\-]\d{1,2})(?!\d)"
)


def _id_grouping(run: DigitRun, i: int, j: int) -> bool:
    """An ID number is broken up by single spaces, dashes, dots or slashes (mixed, as in 85.07.30-033.28), or by the
    same separator throughout (`512 / 48 / 3920`); a run of several numbers ("2028-07-10 / 9/25") is not one."""
    # A line break beside a separator (an ID split between subject and text, "536-22\n-8417") is that separator.
    gaps = run.separators(i, j)
    sizes = [len(g.digits) for g in run.groups[i:j + 1]]
    if sizes == [5, 4]:
        return False  # a ZIP+4
    single = all(g in (" ", "-", ".", "/") for g in gaps)
    if 1 in sizes and set(sizes) != {1} and not single:
        return False  # "see 20281117 / 3/15/2021": a date, then the start of another
    return single or len(set(gaps)) <= 1


def _ein_form(raw: str) -> bool:
    # A US employer number (12-3456789) is a business's, on every W-9 and invoice: never a person's ID.
    return bool(re.fullmatch(r"\d{2}-\d{7}", raw))


_DATEISH = re.compile(r"(?:19|20)\d\d[-/.]?\d\d[-/.]?\d\d|\d\d?[-/.]\d\d?[-/.](?:19|20)?\d\d")


def _find_national_ids(text: str) -> Iterator[Finding]:
    cues = _cue_spans(text)
    seen: set[tuple[int, int]] = set()
    found: list[Finding] = []
    for scheme, start, end, raw, compact, strict in sorted(_id_candidates(text, cues), key=lambda c: c[1]):
        if (start, end) in seen or _ein_form(raw) or (scheme.loose and _DATEISH.fullmatch(raw)):
            continue
        if (
            _cued(text, start, end, scheme, cues)
            or _listed_after(text, start, scheme.name, found)
            or (strict and scheme.plain and scheme.plain(raw, compact) and not _labelled_otherwise(text, start))
        ):
            seen.add((start, end))
            finding = Finding(scheme.kind, compact, start, end, scheme.name)
            found.append(finding)
            yield finding


def _listed_after(text: str, start: int, scheme: str, found: list[Finding]) -> bool:
    """The next in a list under one cue: "SINs:\nFarah 046 454 286\nJordan 193 456 787". It follows a number of
    the same scheme found just before, with only a name or a separator between them."""
    for f in reversed(found):
        if f.scheme == scheme and f.end <= start and start - f.end <= 48:
            between = text[f.end:start]
            return not re.search(r"\d", between) and not _RELABEL.search(between) and not _SENTENCE_END.search(between)
    return False


# ---------------------------------------------------------------------------------------------------- passwords

# The words that introduce a password or a code that opens something.
_PW_CUE = (
    r"pass(?:word|wd|code|phrase)s?|pwd|pword|p/w|pin(?:\s*(?:code|number|no\.?|#))?"
    r"|(?:wi-?fi|wifi|wlan|network|wpa2?|router)\s+key"
    r"|(?:door|gate|alarm|lock\s?box|key\s?safe|key\s?box|keypad|entry|entrance|garage|building|buzzer|safe|padlock"
    r"|locker|front\s+door|back\s+door|side\s+door|lobby)(?:['’]s)?\s+(?:code|pin|combination|combo|number)"
    r"|keypad"
    r"|(?:lock\s+)?combination|combo"
    r"|code\s+(?:to|for)\s+(?:the\s+|our\s+|my\s+)?(?:front\s+|back\s+|side\s+|main\s+|garden\s+)?(?:door|gate|lock\s?box"
    r"|key\s?safe|key\s?box|alarm|garage|building|office|studio|shop|safe|padlock|locker|storeroom|unit)"
    r"|(?:backup|recovery)\s+codes?"
)
_SHORT_PW_CUE = r"pass|pw"  # a word of its own in English too: only with ":" or "=" ("pass: ...", "pw=...")
_VALUE = r"(?P<q>[\"'“‘«])(?P<qv>[^\"'”’»\n]{3,64})[\"'”’»]|(?P<v>[^\s\"'“”‘’«»]{3,64})"
_EXPLICIT = (
    r"\s*[:=]\s*|\s+[-–]\s+|\s*(?:->|=>|→|⇒|»)\s*"
    r"|\s+(?:is\s+now|is\s+still|will\s+be|is|was|has\s+been\s+(?:changed|reset|set|updated)\s+to"
    r"|(?:was\s+)?(?:changed|reset|set|updated)\s+to|reads|remains)\s*:?\s*"
    # "password for the studio Wi-Fi is ...", "code to the side gate: ..."
    r"|\s+(?:for|to|of|on|at)\s+(?:[^\n:=.!?]|\.(?!\s)){1,40}?(?:\s+(?:is\s+now|will\s+be|is|was)\s+|\s*[:=]\s*|\s+[-–]\s+)"
)
_PASSWORD = re.compile(
    rf"(?<![A-Za-z])(?i:(?P<cue>{_PW_CUE}))(?![A-Za-z])"
    # "the Wi-Fi password (case sensitive): …", "PIN (new):"
    r"(?:[ \t]*\([^()\n]{1,30}\))?"
    rf"(?:(?P<sep>{_EXPLICIT})|(?P<ws>[ \t]+|[ \t]*\n[ \t]*))(?:{_VALUE})"
)
_SHORT_PASSWORD = re.compile(rf"(?<![A-Za-z])(?i:(?:{_SHORT_PW_CUE})\s*[:=]\s*|(?P<is>pw\s+is\s+))(?:{_VALUE})")
# "user / password: sam.k / Tulip!2026", "login/pass - jen@... / ...": the second of the pair.
_PAIR = re.compile(
    r"(?<![^\s(,;])(?i:user(?:\s?name)?|login|log-in|user\s?id|e-?mail|account|id|wi-?fi|ssid|network)\s*/\s*"
    r"(?i:pass(?:word)?|pwd|pw|pin|key)\s*[:=\-–]?\s*\S+\s*/\s*(?:" + _VALUE + ")"
)
# A sign-in line, then the password after a slash on it or alone on the next line:
# "Login: sam.k / Tulip!2026", "Wi-Fi: FernGuest / Tide2026!", "username: jen\nHarbor!77".
_LOGIN_LINE = re.compile(
    r"(?<![^\s(,;])(?i:user(?:\s?name)?|login|log-in|sign[\s\-]?in|user\s?id|e-?mail|wi-?fi|ssid|network)"
    r"(?:[ \t]*[:=][ \t]*|[ \t]+)(?P<who>[^\s/]+)(?:[ \t]*/[ \t]*|[ \t]*\n[ \t]*)"
    r"(?P<v>[^\s\"'“”‘’]{3,64})(?P<rest>[^\n]*)"
)
# "The login for the portal is sam / Tide2026", "Credentials: sam / Tide2026": the second of the pair.
_CREDENTIALS = re.compile(
    r"(?<![A-Za-z])(?i:login|log-in|sign-in|credentials|details)\b[^\n:]{0,40}?(?:\s(?i:is|are)\s|:)\s*"
    r"(?P<who>[^\s/]+)[ \t]*/[ \t]*(?P<v>[^\s\"'“”‘’]{3,64})"
)
# "Tide2026! is the new Wi-Fi password": the value first.
_VALUE_FIRST = re.compile(
    r"(?<!\S)(?P<v>[^\s\"'“”‘’]{3,64})\s+is\s+(?i:(?:the|our|my|your|his|her|their)\s+(?:new\s+|current\s+)?"
    r"(?:(?:wi-?fi\s+|wifi\s+|network\s+|admin\s+|account\s+)?(?:password|passcode|pin)"
    r"|(?:door|gate|alarm|lock\s?box|key\s?safe|keypad|entry|garage)\s+(?:code|pin)))\b"
)
# "Use code 552907 to sign in", "enter 552907 to verify your account".
_CODE_TO_SIGN_IN = re.compile(
    r"(?i:use|enter|type|code)\s+(?:the\s+)?(?:code\s+)?(?P<v>\d{4,8}|\d{3}[ \-]\d{3})\s+to\s+"
    r"(?i:sign[\s\-]?in|log[\s\-]?in"
    r"|verify\s+your\s+(?:account|identity|email|login|sign-in)|reset\s+your\s+password|finish\s+signing\s+in)"
)
# "552907 is your Stripe verification code", "G-552907 is your Google verification code".
_CODE_FIRST = re.compile(
    r"(?<![\w\-])(?:[A-Z]-)?(?P<v>\d{4,8})\s+is\s+your\s+(?:[\w\-]+\s+){0,2}?(?i:(?:verification|security|sign[\s\-]?in"
    r"|log[\s\-]?in|one[\s\-]?time|authentication|auth|2fa|access|confirmation)\s+(?:code|pin|passcode)|otp|passcode|pin)\b"
)
# Right after a network's or an account's name, "password hawthorn" is one: "Network BloomGuest, password
# hawthorn", "user sam.k password tulip".
_CREDENTIAL_LINE = re.compile(
    r"(?<![A-Za-z])(?i:wi-?fi|wlan|network|ssid|router|login|log-in|user(?:\s?name)?|e-?mail|account)"
    r"(?:\s*[:=]\s*|\s+(?:is\s+)?)\S+\s*[,;/|\-]?\s*(?:(?i:and|&)\s+(?:the\s+)?)?$"
)
_SIGN_IN_CODE = re.compile(
    r"\b(?:(?:verification|security|one[\s\-]?time|sign[\s\-]?in|log[\s\-]?in|authentication|auth|2fa|two[\s\-]factor"
    r"|mfa|access|confirmation\s+pin|reset)\s+(?:code|pin|passcode)|otp|passcode)\b"
    r"[^\d\n]{0,40}?(?<![\d.,:/\-])(?P<v>\d{4,8}|\d{3}[ \-]\d{3})(?!\d)(?![.,:/\-]\d)",
    re.I,
)

# "The Wi-Fi password is below:" and the password alone on a line after it (a blank line between is fine):
# "see below" gives none, a token by itself after it does.
_BELOW = re.compile(
    rf"(?<![A-Za-z])(?i:(?P<cue>{_PW_CUE}))(?![A-Za-z])[^\n]{{0,60}}?"
    r"(?i:\b(?:is\s+|are\s+|goes\s+|comes\s+)?(?:below|beneath|underneath|as\s+follows|follows|on\s+the\s+next\s+line"
    r"|on\s+the\s+line\s+below|here))[ \t]*[:.\-–]?[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*"
    rf"(?:{_VALUE})[ \t]*(?=\r?\n|$)"
)
# "passphrase: copper kettle morning": a passphrase is words; after its cue and a colon, two to six of them to the
# end of the line or sentence.
_PASSPHRASE = re.compile(
    r"(?<![A-Za-z])(?i:pass[\s\-]?phrase|pass\s+words?|secret\s+(?:words?|phrase))\s*(?:[:=]|->|\bis\b)\s*"
    r"(?P<v>[a-z]{3,}(?:[ \-][a-z]{2,}){1,5})[ \t]*(?=[.!;,]?\s*(?:\n|$))"
)
# Codes given in prose: "punch 8642 into the keypad", "the keypad takes 4490#", "disarm the alarm with 3108",
# "1397 opens the side gate".
_OPENS = (r"(?:front\s+|back\s+|side\s+|main\s+|garden\s+|shed\s+|workshop\s+)?"
          r"(?:door|gate|alarm|key\s?pad|lock\s?box|key\s?safe|padlock|safe|shutter|garage|shed|barn|unit|locker)")
_CODE = r"(?P<v>\d{4,8}[#*]?)(?![\d:/.,]\d)"
_CODE_PROSE = [re.compile(p) for p in (
    rf"(?i:\b(?:punch|key|tap|type|enter|put)\s+(?:in\s+)?){_CODE}\s+(?i:(?:in|into|on|at)\s+(?:the\s+)?"
    rf"(?:[\w'-]+\s+){{0,2}}?(?:{_OPENS}|panel))",
    rf"(?i:\b(?:{_OPENS}|panel)\s+(?:takes|opens\s+(?:on|with)|is\s+set\s+to|uses|accepts|wants))\s+{_CODE}",
    rf"(?i:\b(?:disarm|unset|arm|set|open|unlock|silence)\s+(?:the\s+|our\s+|my\s+)?(?:[\w'-]+\s+){{0,2}}?{_OPENS}\s+"
    rf"(?:with|using|by\s+(?:entering|typing|keying\s+in)|on))\s+{_CODE}",
    rf"(?<![\w$£€.,:/-]){_CODE}\s+(?i:(?:opens|unlocks|disarms|unsets|silences)\s+(?:the\s+|our\s+)?"
    rf"(?:[\w'-]+\s+){{0,2}}?(?:{_OPENS}|studio|office|shop|building|boathouse|storeroom))\b",
)]

# What follows "password is" or "password:" without being one: how a password is, where it is, what to do.
_NOT_A_PASSWORD = frozenset("""
    required incorrect wrong invalid expired expiring correct right weak strong secure insecure short long changed
    changing updated reset saved stored encrypted hidden visible protected needed necessary optional missing blank
    empty new old same different unchanged temporary sensitive private secret confidential forgotten lost
    compromised known unknown set fine ok okay good bad below above attached enclosed included inside here there
    ready pending active inactive locked unlocked disabled enabled valid accepted rejected too not still now being
    also the a an your my our their his her its in on at with for to from by sent coming separate separately
    elsewhere printed written taped stuck case see ask call check use enter type change update create choose
    pick click follow none null nil n/a na tbd tba tbc same as usual unchanged managed protection manager reset
    reminder hint policy rules requirements field box prompt screen page link email text message sms app
    vault keychain 1password lastpass bitwarden dashlane expires expire expiry length characters
    it this that these those one which what who whoever something anything nothing everything whatever
    please thanks thank later soon tomorrow today tonight yesterday again first last next
""".split())
_UNIT_AFTER = re.compile(
    r"\s*(?:\+|or\s+more|plus)?\s*(?:characters?|chars?|digits?|letters?|numbers?|symbols?|long|minutes?|mins?|"
    r"hours?|hrs?|days?|weeks?|months?|years?|attempts?|tries|times|x\b|%)", re.I
)
_DATE_OR_AMOUNT = re.compile(
    r"[$£€¥]\d[\d,.]*(?:k|m|bn)?|[\d,.]*\d[$£€¥%]|(?:19|20)\d\d(?:[-/.]\d{1,2}){0,2}|\d{1,2}[-/.]\d{1,2}(?:[-/.]\d{2,4})?|\d{1,2}:\d{2}"
    r"|\d+(?:st|nd|rd|th)|\d{1,3}(?:,\d{3})+(?:\.\d+)?",
    re.I,
)
_WRAP = ".,;:!?)]}>'\"“”‘’"
_DOMAIN = re.compile(r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}(?:/\S*)?")


def _strong(v: str) -> bool:
    """Looks made up rather than written: a digit, a symbol inside it, or a capital after the first letter."""
    inner = v[1:-1]
    return (
        any(c.isdigit() for c in v)
        # "$unset88", "!harbour": a symbol in front of letters is typed, not written (an amount is told apart first)
        or (v[0] in "$!#%^&~" and inner.isalnum() and sum(c.isalpha() for c in v) >= 3)
        or any(not c.isalnum() for c in inner)
        or (any(c.isupper() for c in v[1:]) and any(c.islower() for c in v))
        or (v.isalpha() and len(v) >= 12)
    )


def _password_value(value: str, *, quoted: bool, explicit: bool, after: str, years_too: bool = True) -> bool:
    v = value.strip(_WRAP).lstrip("([{<")
    low = v.lower()
    if len(v) < 3 or set(v) <= set("*•x.-_#") or low in _NOT_A_PASSWORD or _UNIT_AFTER.match(after):
        return False
    if v.isdigit():
        # A PIN or a door code may well be 1984; after the bare word "pass", 2026 is a season.
        return len(v) >= 4 and (years_too or not re.fullmatch(r"(?:19|20)\d\d", v))
    if low.startswith(("http", "www.", "/")) or "://" in v or _DOMAIN.fullmatch(low) or "@" in v:
        return False
    if _DATE_OR_AMOUNT.fullmatch(v):
        return False
    if quoted:
        return True
    if _strong(v):
        return True
    # A plain word counts only where it is plainly given, and the sentence ends on it: "the Wi-Fi password is
    # bluebell." but not "the password is required to open the file."
    return (
        explicit and v.isalpha() and len(v) >= 4 and not re.search(r"(?:ed|ing|ly|able|ible|ive|ful|less|ous)$", low)
        and re.match(r"\s*(?:[.!,;)]|\n|$)", after) is not None
    )


def _find_passwords(text: str) -> Iterator[Finding]:
    for m in _PASSWORD.finditer(text):
        group = "qv" if m.group("qv") else "v"
        value, after = m.group(group), text[m.end():m.end() + 24]
        cue = m.group("cue").lower()
        explicit = m.group("sep") is not None
        if not explicit and "\n" not in m.group("ws"):
            line_start = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 80)
            explicit = bool(_CREDENTIAL_LINE.search(text[line_start:m.start()]))
        if not explicit and cue.startswith("pin") and not m.group("cue").startswith("PIN") and " " not in cue:
            continue  # "pin 2026 dates on the calendar": the verb, not a PIN
        if not explicit and cue == "keypad":
            continue  # "keypad: 7710" gives a code; "the keypad 2240 model" names one
        if _password_value(value, quoted=group == "qv", explicit=explicit, after=after):
            yield Finding("password", value.strip(_WRAP), m.start(group), m.end(group))
    for m in _SHORT_PASSWORD.finditer(text):
        group = "qv" if m.group("qv") else "v"
        # "Inspection pass: complete": after the short words only a made-up token is a password, unless it is
        # plainly given ("the wifi pw is hawthorn").
        if _password_value(m.group(group), quoted=group == "qv", explicit=m.group("is") is not None,
                           after=text[m.end():m.end() + 24], years_too=False):
            yield Finding("password", m.group(group).strip(_WRAP), m.start(group), m.end(group))
    for m in _PAIR.finditer(text):
        group = "qv" if m.group("qv") else "v"
        if _password_value(m.group(group), quoted=group == "qv", explicit=True, after=text[m.end():m.end() + 24]):
            yield Finding("password", m.group(group).strip(_WRAP), m.start(group), m.end(group))
    for m in _LOGIN_LINE.finditer(text):
        value = m.group("v").strip(_WRAP)
        # Only a made-up token alone after the sign-in name: "login: sam / Tulip!2026", not "email: jo / phone".
        if _strong(value) and not m.group("rest").strip() and _password_value(
                value, quoted=False, explicit=False, after=m.group("rest")) and not value.isdigit():
            yield Finding("password", value, m.start("v"), m.start("v") + len(value))
    for m in _BELOW.finditer(text):
        group = "qv" if m.group("qv") else "v"
        if _password_value(m.group(group), quoted=group == "qv", explicit=True, after=""):
            yield Finding("password", m.group(group).strip(_WRAP), m.start(group), m.end(group))
    for m in _PASSPHRASE.finditer(text):
        words = m.group("v").split()
        if not (set(w.lower() for w in words) & _NOT_A_PASSWORD):
            yield Finding("password", m.group("v"), m.start("v"), m.end("v"))
    for m in (m for pattern in _CODE_PROSE for m in pattern.finditer(text)):
        value = m.group("v").rstrip("#*")
        if not re.fullmatch(r"(?:19|20)\d\d", value) or m.group("v") != value:
            yield Finding("password", m.group("v"), m.start("v"), m.end("v"))
    for m in _SIGN_IN_CODE.finditer(text):
        yield Finding("sign_in_code", m.group("v"), m.start("v"), m.end("v"))
    for m in _CODE_FIRST.finditer(text):
        yield Finding("sign_in_code", m.group("v"), m.start("v"), m.end("v"))
    for m in _CODE_TO_SIGN_IN.finditer(text):
        yield Finding("sign_in_code", m.group("v"), m.start("v"), m.end("v"))
    for m in _CREDENTIALS.finditer(text):
        value = m.group("v").strip(_WRAP)
        if _strong(value) and not value.isdigit() and _password_value(value, quoted=False, explicit=False, after=""):
            yield Finding("password", value, m.start("v"), m.start("v") + len(value))
    for m in _VALUE_FIRST.finditer(text):
        value = m.group("v").strip(_WRAP)
        # "Tide2026! is the new Wi-Fi password", "4417 is the door code"; not "This is the password" nor "2FA
        # is the code".
        if (_strong(value) or value.isdigit()) and _password_value(value, quoted=False, explicit=False, after=""):
            yield Finding("password", value, m.start("v"), m.start("v") + len(value))


# ---------------------------------------------------------------------------------------------------- keys, secrets

_KEY_PATTERNS = [
    re.compile(p)
    for p in (
        r"\bsk-(?:proj-|ant-|live-|svcacct-)?[A-Za-z0-9_\-]{20,}",  # OpenAI, Anthropic
        r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe secret and restricted keys
        r"\bgh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
        r"\bgithub_pat_[A-Za-z0-9_]{40,}",
        r"\bglpat-[A-Za-z0-9_\-]{20,}",  # GitLab
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
        r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
        r"\bAIza[0-9A-Za-z_\-]{35}",  # Google API keys
        r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",  # SendGrid
        r"\bhf_[A-Za-z]{30,}",  # Hugging Face
        r"\bnpm_[A-Za-z0-9]{30,}",
        r"\bshp(?:at|ss|ca)_[A-Fa-f0-9]{32}",  # Shopify
        r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JSON web tokens
        r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----",
        r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}",
    )
]
_SECRET_ASSIGN = re.compile(
    r"\b(?:[a-z0-9]+[_\-])*(?:api[_\-\s]?key|api[_\-\s]?secret|secret(?:[_\-\s]?access)?(?:[_\-\s]?key)?|access[_\-\s]?key"
    r"(?:[_\-\s]?id)?|client[_\-\s]?secret|auth[_\-\s]?token|access[_\-\s]?token|refresh[_\-\s]?token|private[_\-\s]?key"
    r"|token)\b\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+_.=\-]{12,})"
    r"|\bbearer\s+(?P<b>[A-Za-z0-9/+_.=\-]{12,})",
    re.I,
)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.I)
_URL_SECRET_PARAM = re.compile(r"[?&](?:access_token|api_key|apikey|password|secret|client_secret)=([^&#\s]{8,})", re.I)
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_\-@.])[A-Za-z0-9+/=_\-]{32,}(?![A-Za-z0-9+/=_\-@])")


def shannon_entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


def _high_entropy(token: str) -> bool:
    """Random-looking: upper and lower case and digits, and about as much entropy per character as random text."""
    t = token.strip("=")
    return (
        len(t) >= 32
        and any(c.isupper() for c in t)
        and any(c.islower() for c in t)
        and any(c.isdigit() for c in t)
        and shannon_entropy(t) >= 4.0
    )


def _find_secrets(text: str) -> Iterator[Finding]:
    spans: list[tuple[int, int]] = []
    for pattern in _KEY_PATTERNS:
        for m in pattern.finditer(text):
            spans.append((m.start(), m.end()))
            yield Finding("api_key", m.group(), m.start(), m.end())
    for m in _SECRET_ASSIGN.finditer(text):
        group = "v" if m.group("v") else "b"
        value = m.group(group)
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and not value.lower().startswith("http"):
            spans.append((m.start(group), m.end(group)))
            yield Finding("secret", value, m.start(group), m.end(group))
    urls = [(m.start(), m.end()) for m in _URL.finditer(text)]
    for m in _URL_SECRET_PARAM.finditer(text):
        yield Finding("secret", m.group(1), m.start(1), m.end(1))
    for m in _TOKEN.finditer(text):
        # Links carry long ids (a Drive file, a doc): they are addresses, not secrets.
        inside = any(s <= m.start() < e for s, e in urls + spans)
        if not inside and _high_entropy(m.group()):
            yield Finding("secret", m.group(), m.start(), m.end())


_DETECTORS = (_find_cards, _find_ibans, _find_bank_numbers, _find_national_ids, _find_passwords, _find_secrets)
# Only payment details can be the business's own; a password or key is never allowed out.
_MAY_BE_OWN = frozenset({"card", "iban", "bank_account", "routing"})
