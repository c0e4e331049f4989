"""National ID numbers: each scheme's own structure and checksum, as its issuer publishes it.

The validators take the number compact (no spaces or dashes; letters upper case) and answer whether it could be an
issued number: right length and form, valid check digit or letter where the scheme has one, a real date where the
number carries a birth date. They know nothing of the text around the number: `find_national_ids` decides, from a
cue word next to it, whether a valid number is an ID number at all (`checks/detectors.py`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter


def _today() -> dt.date:
    # A birth date still to come makes a number false; a day either side of UTC's date changes nothing that matters.
    return dt.datetime.now(dt.UTC).date()


def luhn_valid(digits: str) -> bool:
    if not digits.isascii() or not digits.isdigit() or len(digits) < 2:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _digits(s: str, *lengths: int) -> bool:
    return s.isascii() and s.isdigit() and len(s) in lengths


def _date(year: int, month: int, day: int) -> bool:
    try:
        dt.date(year, month, day)
    except ValueError:
        return False
    return True


def _two_digit_year_date(yy: int, month: int, day: int) -> bool:
    # The century isn't written; a date valid in either of the last two counts.
    return _date(1900 + yy, month, day) or _date(2000 + yy, month, day)


# ---------------------------------------------------------------------------------------------------- North America

def us_ssn_valid(d: str) -> bool:
    """US Social Security number: no area 000, 666 or 900-999, no group 00, no serial 0000."""
    if not _digits(d, 9):
        return False
    area, group, serial = int(d[:3]), int(d[3:5]), int(d[5:])
    return area not in (0, 666) and area < 900 and group != 0 and serial != 0


def us_itin_valid(d: str) -> bool:
    """US ITIN: 9XX-YY-ZZZZ with YY in the IRS's ranges 50-65, 70-88, 90-92, 94-99."""
    if not _digits(d, 9) or d[0] != "9":
        return False
    g = int(d[3:5])
    return 50 <= g <= 65 or 70 <= g <= 88 or 90 <= g <= 92 or 94 <= g <= 99


def ca_sin_valid(d: str) -> bool:
    """Canada's Social Insurance Number: nine digits, Luhn."""
    return _digits(d, 9) and d != "000000000" and luhn_valid(d)


# ---------------------------------------------------------------------------------------------------- UK, Ireland

# HMRC: the first letter is not D, F, I, Q, U or V; the second not D, F, I, O, Q, U or V; and these pairs are never
# issued. The suffix is A to D and may be left off.
_NINO_FIRST = set("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND = set("ABCEGHJKLMNPRSTWXYZ")
_NINO_NEVER = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def uk_nino_valid(s: str) -> bool:
    """UK National Insurance number: two letters of the allowed ones, six digits, and an A-D suffix or none."""
    m = re.fullmatch(r"([A-Z])([A-Z])(\d{6})([A-D]?)", s)
    return m is not None and m.group(1) in _NINO_FIRST and m.group(2) in _NINO_SECOND and s[:2] not in _NINO_NEVER


def uk_nhs_valid(d: str) -> bool:
    """NHS number: ten digits, mod 11 with weights 10 to 2 (a remainder giving 10 is never issued)."""
    if not _digits(d, 10):
        return False
    check = 11 - sum(int(c) * (10 - i) for i, c in enumerate(d[:9])) % 11
    check = 0 if check == 11 else check
    return check != 10 and check == int(d[9])


_PPS_ALPHABET = "WABCDEFGHIJKLMNOPQRSTUV"


def ie_ppsn_valid(s: str) -> bool:
    """Ireland's PPS number: seven digits and a check letter (mod 23); since 2013 a second letter A, B or H that
    counts in the check (an older W, T or X doesn't)."""
    m = re.fullmatch(r"(\d{7})([A-W])([ABHWTX]?)", s)
    if not m:
        return False
    total = sum((8 - i) * int(c) for i, c in enumerate(m.group(1)))
    if m.group(3) in ("A", "B", "H"):
        total += 9 * _PPS_ALPHABET.index(m.group(3))
    return _PPS_ALPHABET[total % 23] == m.group(2)


# ---------------------------------------------------------------------------------------------------- Australia, NZ

def au_tfn_valid(d: str) -> bool:
    """Australia's Tax File Number, nine digits: weights 1 4 3 7 5 8 6 9 10, sum divisible by 11."""
    return _digits(d, 9) and sum(int(c) * w for c, w in zip(d, (1, 4, 3, 7, 5, 8, 6, 9, 10), strict=False)) % 11 == 0


def au_medicare_valid(d: str) -> bool:
    """Australia's Medicare card number: ten digits (an eleventh for the person on the card), first 2-6, the ninth a
    check digit over the first eight with weights 1 3 7 9 1 3 7 9."""
    if not _digits(d, 10, 11) or d[0] not in "23456":
        return False
    return sum(int(c) * w for c, w in zip(d, (1, 3, 7, 9, 1, 3, 7, 9), strict=False)) % 10 == int(d[8])


def nz_ird_valid(d: str) -> bool:
    """New Zealand's IRD number: 8 or 9 digits between 10,000,000 and 150,000,000, mod 11 with a second set of
    weights when the first gives 10."""
    if not _digits(d, 8, 9) or not 10_000_000 < int(d) < 150_000_000:
        return False
    base, check = d[:-1].zfill(8), int(d[-1])
    for weights in ((3, 2, 7, 6, 5, 4, 3, 2), (7, 4, 3, 2, 5, 2, 7, 6)):
        c = -sum(int(a) * w for a, w in zip(base, weights, strict=False)) % 11
        if c != 10:
            return c == check
    return False


# ---------------------------------------------------------------------------------------------------- India, Singapore

_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def verhoeff_valid(d: str) -> bool:
    if not d.isascii() or not d.isdigit():
        return False
    c = 0
    for i, ch in enumerate(reversed(d)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def in_aadhaar_valid(d: str) -> bool:
    """India's Aadhaar number: twelve digits, not starting 0 or 1, not a palindrome, Verhoeff check digit."""
    return _digits(d, 12) and d[0] not in "01" and d != d[::-1] and verhoeff_valid(d)


def in_pan_valid(s: str) -> bool:
    """India's PAN: five letters (the fourth the holder's kind), four digits, a letter. No public checksum."""
    return bool(re.fullmatch(r"[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]", s))


def sg_nric_valid(s: str) -> bool:
    """Singapore's NRIC and FIN (S, T, F, G series): letter, seven digits, a check letter over weights 2 7 6 5 4 3 2."""
    m = re.fullmatch(r"([STFG])(\d{7})([A-Z])", s)
    if not m:
        return False
    total = sum(int(c) * w for c, w in zip(m.group(2), (2, 7, 6, 5, 4, 3, 2), strict=False))
    total += 4 if m.group(1) in "TG" else 0
    table = "JZIHGFEDCBA" if m.group(1) in "ST" else "XWUTRQPNMLK"
    return table[total % 11] == m.group(3)


# ---------------------------------------------------------------------------------------------------- Spain, Italy

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def es_dni_valid(s: str) -> bool:
    """Spain's DNI: eight digits and the letter of their remainder mod 23."""
    return bool(re.fullmatch(r"\d{8}[A-Z]", s)) and _DNI_LETTERS[int(s[:8]) % 23] == s[8]


def es_nie_valid(s: str) -> bool:
    """Spain's NIE: X, Y or Z (read as 0, 1, 2), seven digits, and the DNI's check letter over all eight."""
    if not re.fullmatch(r"[XYZ]\d{7}[A-Z]", s):
        return False
    return _DNI_LETTERS[int(str("XYZ".index(s[0])) + s[1:8]) % 23] == s[8]


# Digits may be swapped for letters where two people would share a code (omocodia): L=0 M=1 N=2 P=3 ... V=9.
_CF_DIGIT = "LMNPQRSTUV"
_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", (
    1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10,
    22, 25, 24, 23,
), strict=False))
_CF_MONTHS = "ABCDEHLMPRST"
_CF_FORM = re.compile(r"[A-Z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z]")


def it_codice_fiscale_valid(s: str) -> bool:
    """Italy's codice fiscale: 16 characters (name, birth date with a month letter, place), a check letter."""
    if not _CF_FORM.fullmatch(s):
        return False
    def number(chars: str) -> int:
        return int("".join(str(_CF_DIGIT.index(c)) if c in _CF_DIGIT else c for c in chars))

    year = number(s[6:8])
    # Women's days are written plus 40. The century isn't written: read it as the hundred years from 1920.
    if not _date(year + (1900 if year >= 20 else 2000), _CF_MONTHS.index(s[8]) + 1, number(s[9:11]) % 40):
        return False
    total = sum(_CF_ODD[c] if i % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65) for i, c in enumerate(s[:15]))
    return chr(65 + total % 26) == s[15]


# ---------------------------------------------------------------------------------------------------- France, Belgium

def fr_nir_valid(s: str) -> bool:
    """France's NIR (numéro de sécurité sociale): sex, year, month, department (2A and 2B for Corsica), commune,
    order, and a two-digit key, 97 less the first thirteen mod 97."""
    m = re.fullmatch(r"([1-478])(\d{2})(\d{2})(\d{2}|2[AB])(\d{3})(\d{3})(\d{2})", s)
    if not m:
        return False
    month = int(m.group(3))
    if not (1 <= month <= 12 or 20 <= month <= 42 or 50 <= month <= 99):
        return False
    body = s[:13]
    if m.group(4) in ("2A", "2B"):
        # Corsica: the key is taken over the number with 2A as 19 and 2B as 18.
        body = body[:5] + ("19" if m.group(4) == "2A" else "18") + body[7:]
    return 97 - int(body) % 97 == int(m.group(7))


def be_national_number_valid(d: str) -> bool:
    """Belgium's national register number: YYMMDD, a serial, and 97 less the first nine mod 97 (a 2 put in front of
    them for people born from 2000)."""
    if not _digits(d, 11):
        return False
    if int(d[2:4]) > 12:  # month 0 (and day 0) stand for a birth date not known when the number was given
        return False
    check = int(d[9:])
    if 97 - int(d[:9]) % 97 == check:
        return True
    # Born from 2000 (so not in a year still to come): the check is over the nine digits with a 2 in front.
    return 2000 + int(d[:2]) <= _today().year and 97 - int("2" + d[:9]) % 97 == check


# ------------------------------------------------------------------------------------------------ Germany, Netherlands

def de_steuer_id_valid(d: str) -> bool:
    """Germany's Steuer-ID: eleven digits, no leading 0; in the first ten one digit appears twice or three times and
    the rest at most once; the last an ISO 7064 MOD 11,10 check digit."""
    if not _digits(d, 11) or d[0] == "0":
        return False
    counts = Counter(d[:10])
    repeated = [c for c in counts.values() if c > 1]
    if len(repeated) != 1 or repeated[0] > 3:
        return False
    product = 10
    for c in d[:10]:
        total = (int(c) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(d[10])


def nl_bsn_valid(d: str) -> bool:
    """The Netherlands' BSN: nine digits (eight with a leading 0 left off), the "11-proof": weights 9 to 2 on the
    first eight, less the last, divisible by 11."""
    if not _digits(d, 8, 9):
        return False
    d = d.zfill(9)
    return int(d) != 0 and (sum((9 - i) * int(c) for i, c in enumerate(d[:8])) - int(d[8])) % 11 == 0


# ---------------------------------------------------------------------------------------------------- Poland

def pl_pesel_valid(d: str) -> bool:
    """Poland's PESEL: YYMMDD (the month carries the century), a serial, a check digit over weights 1 3 7 9."""
    if not _digits(d, 11):
        return False
    yy, mm, dd = int(d[:2]), int(d[2:4]), int(d[4:6])
    century = {0: 1900, 1: 2000, 2: 2100, 3: 2200, 4: 1800}.get(mm // 20)
    if century is None or not _date(century + yy, mm % 20, dd):
        return False
    total = sum(int(c) * w for c, w in zip(d, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=False))
    return (10 - total % 10) % 10 == int(d[10])


# ---------------------------------------------------------------------------------------------------- Nordics

def se_personnummer_valid(d: str) -> bool:
    """Sweden's personnummer: (YY)YYMMDD and four digits, Luhn over the last ten; the day plus 60 for a
    coordination number."""
    if not _digits(d, 10, 12):
        return False
    short = d[-10:]
    month, day = int(short[2:4]), int(short[4:6])
    day = day - 60 if day > 60 else day
    if len(d) == 12:
        if not _date(int(d[:4]), month, day):
            return False
    elif not _two_digit_year_date(int(short[:2]), month, day):
        return False
    return luhn_valid(short)


_HETU = re.compile(r"(\d{2})(\d{2})(\d{2})([-+A-FU-Y])(\d{3})([0-9A-Y])")
_HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"
_HETU_CENTURY = {"+": 1800, "-": 1900, "U": 1900, "V": 1900, "W": 1900, "X": 1900, "Y": 1900,
                 "A": 2000, "B": 2000, "C": 2000, "D": 2000, "E": 2000, "F": 2000}


def fi_hetu_valid(s: str) -> bool:
    """Finland's henkilötunnus: DDMMYY, a century sign, an individual number 002-899, a check character mod 31."""
    m = _HETU.fullmatch(s)
    if not m:
        return False
    dd, mm, yy = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not _date(_HETU_CENTURY[m.group(4)] + yy, mm, dd) or not 2 <= int(m.group(5)) <= 899:
        return False
    return _HETU_CHECK[int(m.group(1) + m.group(2) + m.group(3) + m.group(5)) % 31] == m.group(6)


def no_fodselsnummer_valid(d: str) -> bool:
    """Norway's fødselsnummer: DDMMYY, an individual number, two mod 11 check digits (D-numbers add 4 to the day's
    first digit, H-numbers 4 to the month's)."""
    if not _digits(d, 11):
        return False
    day, month, year, individual = int(d[:2]), int(d[2:4]), int(d[4:6]), int(d[6:9])
    day = day - 40 if day > 40 else day
    month = month - 40 if month > 40 else month
    # The individual number tells the century.
    if individual < 500:
        year += 1900
    elif individual < 750 and year >= 54:
        year += 1800
    elif year < 40:
        year += 2000
    elif individual >= 900:
        year += 1900
    else:
        return False
    if not _date(year, month, day) or dt.date(year, month, day) > _today():
        return False
    for weights, n in (((3, 7, 6, 1, 8, 9, 4, 5, 2), 9), ((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), 10)):
        c = -sum(int(a) * w for a, w in zip(d[:n], weights, strict=False)) % 11
        if c == 10 or c != int(d[n]):
            return False
    return True


def dk_cpr_valid(d: str) -> bool:
    """Denmark's CPR number: DDMMYY and four digits. Its mod 11 check was dropped in 2007, so only the date is
    checked: a CPR number needs its cue word."""
    if not _digits(d, 10):
        return False
    day, month, year = int(d[:2]), int(d[2:4]), int(d[4:6])
    # The seventh digit tells the century.
    if d[6] in "5678" and year >= 58:
        year += 1800
    elif d[6] in "0123" or (d[6] in "49" and year >= 37):
        year += 1900
    else:
        year += 2000
    return _date(year, month, day) and dt.date(year, month, day) <= _today()


# ---------------------------------------------------------------------------------------------------- South Africa

def za_id_valid(d: str) -> bool:
    """South Africa's ID number: YYMMDD, four digits, citizenship 0 or 1, one more, and a Luhn check digit."""
    return (_digits(d, 13) and _two_digit_year_date(int(d[:2]), int(d[2:4]), int(d[4:6])) and d[10] in "01"
            and luhn_valid(d))
