"""Detectors for what must never leave the business: passwords and sign-in codes, card numbers, bank numbers,
national ID numbers, API keys and secrets.

Each detector looks for the thing's own structure (a checksum, an issuer's prefix and length, a country's IBAN
length) or for a cue word right next to it, never for "a long number": phone numbers, invoice and order numbers,
ZIP+4, tracking numbers and timestamps are everyday business mail and must go. The business's own payment
details, which the owner sets, may go: a finding that is part of one of them (ignoring spaces, hyphens and letter
case) is dropped.

To add a detector: write `_find_<thing>(text) -> Iterator[Finding]`, add it to `_DETECTORS`, and test it both ways
in tests/checks/test_detectors.py.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    kind: str  # card, iban, bank_account, routing, ssn, password, sign_in_code, api_key, secret
    value: str
    start: int
    end: int


def find_sensitive(text: str, *, allowed: Iterable[str] = ()) -> list[Finding]:
    """Everything sensitive in `text`, less what is part of the business's own `allowed` payment details."""
    if not text:
        return []
    own = [_squash(a) for a in allowed if a]
    found: dict[tuple[int, int], Finding] = {}
    for detector in _DETECTORS:
        for f in detector(text):
            if f.kind in _MAY_BE_OWN and any(_squash(f.value) in o for o in own):
                continue
            # Two detectors may see the same characters (a key id is also an assignment's value): keep the first.
            found.setdefault((f.start, f.end), f)
    return sorted(found.values(), key=lambda f: f.start)


def _squash(s: str) -> str:
    return re.sub(r"[\s\-]", "", s).lower()


# ---------------------------------------------------------------------------------------------------- cards

def luhn_valid(digits: str) -> bool:
    if not digits.isdigit() or len(digits) < 2:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


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


# Runs of digit groups joined by single spaces or hyphens, not glued to letters (ids such as INV-2026 stay ids).
_DIGIT_RUN = re.compile(r"(?<![A-Za-z0-9])\d+(?:[ \-]\d+)*(?![A-Za-z0-9])")


def _find_cards(text: str) -> Iterator[Finding]:
    for m in _DIGIT_RUN.finditer(text):
        groups = list(re.finditer(r"\d+", m.group()))
        # A card can sit in a longer run ("invoice 1042 4929 3817 ..."), so try every run of whole groups.
        for i in range(len(groups)):
            digits = ""
            for j in range(i, len(groups)):
                digits += groups[j].group()
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and card_issuer(digits) and luhn_valid(digits):
                    yield Finding("card", digits, m.start() + groups[i].start(), m.start() + groups[j].end())


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

_IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})")


def iban_valid(iban: str) -> bool:
    iban = re.sub(r"[\s\-]", "", iban).upper()
    if len(iban) != IBAN_LENGTHS.get(iban[:2], -1) or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def _find_ibans(text: str) -> Iterator[Finding]:
    for m in _IBAN_START.finditer(text):
        length = IBAN_LENGTHS.get(m.group(1).upper())
        if not length:
            continue
        # Walk the characters, allowing one space or hyphen between them, until the country's length is reached.
        chars, i = [], m.start()
        while i < len(text) and len(chars) < length:
            ch = text[i]
            if ch.isalnum():
                chars.append(ch)
            elif ch in " -" and i + 1 < len(text) and text[i + 1].isalnum() and chars:
                pass
            else:
                break
            i += 1
        if len(chars) == length and not (i < len(text) and text[i].isalnum()) and iban_valid("".join(chars)):
            yield Finding("iban", "".join(chars).upper(), m.start(), i)


# ---------------------------------------------------------------------------------------------------- bank numbers

def aba_routing_valid(digits: str) -> bool:
    if len(digits) != 9 or not digits.isdigit():
        return False
    prefix = int(digits[:2])
    if not (prefix <= 12 or 21 <= prefix <= 32 or 61 <= prefix <= 72 or prefix == 80):
        return False
    weights = (3, 7, 1) * 3
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 10 == 0


_ROUTING_CUE = r"routing|aba|rtn|transit"
_ACCOUNT_CUE = r"(?:checking|savings|bank|current|deposit)\s+account|account\s*(?:number|no\.?|num|#)|acct\.?|a/c"
_BARE_ACCOUNT_CUE = r"account"
_SORT_CUE = r"sort\s*code|bsb"
# Up to a few filler words between the cue and the number: "routing number is 026009593", "account no.: 1234".
_FILLER = r"(?:\s*(?:number|no\.?|num|#|is|:|=|-|of|code|\(\w+\))\s*){0,4}\s*"
_NUMBER = r"(?P<n>\d(?:[ \-]?\d){5,16})(?![\d])"
_BANK_CONTEXT = re.compile(
    r"\b(bank|routing|aba|checking|savings|wire|transfer|ach|iban|swift|bic|sort code|deposit|refund|pay(?:ment)?s?)\b",
    re.I,
)


def _find_bank_numbers(text: str) -> Iterator[Finding]:
    for m in re.finditer(rf"\b(?:{_ROUTING_CUE})\b{_FILLER}{_NUMBER}", text, re.I):
        digits = re.sub(r"\D", "", m.group("n"))
        if aba_routing_valid(digits):
            yield Finding("routing", digits, m.start("n"), m.end("n"))
    for m in re.finditer(rf"\b(?:{_ACCOUNT_CUE}|{_SORT_CUE}){_FILLER}{_NUMBER}", text, re.I):
        yield Finding("bank_account", re.sub(r"\D", "", m.group("n")), m.start("n"), m.end("n"))
    # A bare "account 7720193844" is a bank account only where the talk is of banks and payments.
    for m in re.finditer(rf"\b(?:{_BARE_ACCOUNT_CUE})\b{_FILLER}{_NUMBER}", text, re.I):
        window = text[max(0, m.start() - 80): m.end() + 80]
        if _BANK_CONTEXT.search(window):
            yield Finding("bank_account", re.sub(r"\D", "", m.group("n")), m.start("n"), m.end("n"))


# ---------------------------------------------------------------------------------------------------- national IDs

_SSN_CUE = r"ssn|ss#|social\s+security(?:\s+(?:number|no\.?|#))?|soc\.?\s*sec\.?|tin|taxpayer\s+id(?:entification)?(?:\s+number)?|tax\s+id"
_SSN = re.compile(
    rf"\b(?:{_SSN_CUE})(?![A-Za-z]){_FILLER}(?P<a>\d{{3}})([ \-]?)(?P<g>\d{{2}})\2(?P<s>\d{{4}})(?!\d)", re.I
)


def ssn_valid(area: str, group: str, serial: str) -> bool:
    a = int(area)
    return a != 0 and a != 666 and a < 900 and int(group) != 0 and int(serial) != 0


def _find_ssns(text: str) -> Iterator[Finding]:
    for m in _SSN.finditer(text):
        if ssn_valid(m.group("a"), m.group("g"), m.group("s")):
            yield Finding("ssn", m.group("a") + m.group("g") + m.group("s"), m.start("a"), m.end("s"))


# ---------------------------------------------------------------------------------------------------- passwords

_PASSWORD = re.compile(
    r"\b(?:pass(?:word|wd|code|phrase)|pwd|pin)\b\s*(?:[:=]|\bis\b)\s*[\"'“‘]?(?P<v>[^\s\"'”’]{3,})", re.I
)
_SIGN_IN_CODE = re.compile(
    r"\b(?:(?:verification|security|one[\s\-]?time|sign[\s\-]?in|log[\s\-]?in|authentication|auth|2fa|two[\s\-]factor"
    r"|mfa|access|confirmation\s+pin|reset)\s+(?:code|pin|passcode)|otp|passcode)\b"
    r"[^\d\n]{0,40}?(?<![\d.,:/\-])(?P<v>\d{4,8}|\d{3}[ \-]\d{3})(?!\d)(?![.,:/\-]\d)",
    re.I,
)


def _looks_like_a_secret(value: str) -> bool:
    """A password is not a plain word: "password: required" or "password is incorrect" name none."""
    v = value.rstrip(".,;:!?)")
    if len(v) < 3 or set(v) <= set("*•x.-_"):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed_case = any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
    return has_digit or has_symbol or mixed_case or (v.isalpha() and len(v) >= 12)


def _find_passwords(text: str) -> Iterator[Finding]:
    for m in _PASSWORD.finditer(text):
        value = m.group("v")
        if value.lower().startswith(("http", "www.")):
            continue
        if _looks_like_a_secret(value):
            yield Finding("password", value, m.start("v"), m.end("v"))
    for m in _SIGN_IN_CODE.finditer(text):
        yield Finding("sign_in_code", m.group("v"), m.start("v"), m.end("v"))


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


_DETECTORS = (_find_cards, _find_ibans, _find_bank_numbers, _find_ssns, _find_passwords, _find_secrets)
# Only payment details can be the business's own; a password or key is never allowed out.
_MAY_BE_OWN = frozenset({"card", "iban", "bank_account", "routing"})
