"""Each national ID scheme's validator both ways: published specimens pass, one changed digit or letter fails; and,
where python-stdnum implements the scheme, the validator agrees with it on thousands of numbers of the scheme's
shape (a few deliberate differences are said below)."""

import random
import string

import pytest

from checks import national_ids as ids

VALID = [
    (ids.us_ssn_valid, "512483920"),
    (ids.us_itin_valid, "912703456"),
    (ids.ca_sin_valid, "130692544"),
    (ids.ca_sin_valid, "046454286"),  # the CRA's own specimen: a 0 first is not issued, but it is a SIN to send
    (ids.uk_nino_valid, "AB123456C"),
    (ids.uk_nino_valid, "JG103759"),  # the suffix left off
    (ids.uk_nhs_valid, "9434765919"),
    (ids.ie_ppsn_valid, "1234567T"),
    (ids.ie_ppsn_valid, "1234567FA"),  # 2013 format: the second letter counts
    (ids.ie_ppsn_valid, "1234567TW"),  # an older W doesn't
    (ids.au_tfn_valid, "123456782"),
    (ids.au_tfn_valid, "459599230"),
    (ids.au_medicare_valid, "2123456701"),
    (ids.nz_ird_valid, "49091850"),
    (ids.nz_ird_valid, "136410132"),
    (ids.in_aadhaar_valid, "234567890124"),
    (ids.in_aadhaar_valid, "499118665246"),
    (ids.in_pan_valid, "ABCPE1234F"),
    (ids.sg_nric_valid, "S1234567D"),
    (ids.sg_nric_valid, "F1234567N"),
    (ids.es_dni_valid, "12345678Z"),
    (ids.es_nie_valid, "X1234567L"),
    (ids.it_codice_fiscale_valid, "RSSMRA85T10A562S"),
    (ids.it_codice_fiscale_valid, "RCCMNL83S18D969H"),
    (ids.fr_nir_valid, "185057800608491"),
    (ids.fr_nir_valid, "295022A00501234"),  # Corsica: 2A counts as 19 for the key
    (ids.be_national_number_valid, "85073003328"),
    (ids.be_national_number_valid, "17073003384"),  # born 2017: the key is over 2 and the first nine
    (ids.de_steuer_id_valid, "86095742719"),
    (ids.de_steuer_id_valid, "47036892816"),
    (ids.nl_bsn_valid, "111222333"),
    (ids.nl_bsn_valid, "123456782"),
    (ids.pl_pesel_valid, "44051401359"),
    (ids.pl_pesel_valid, "02070803628"),
    (ids.se_personnummer_valid, "8112189876"),
    (ids.se_personnummer_valid, "198112189876"),
    (ids.fi_hetu_valid, "131052-308T"),
    (ids.no_fodselsnummer_valid, "15108695088"),
    (ids.dk_cpr_valid, "2110625629"),
    (ids.za_id_valid, "7503305044089"),
]


@pytest.mark.parametrize("valid,number", VALID, ids=[f"{v.__name__}-{n}" for v, n in VALID])
def test_published_specimens_are_valid(valid, number):
    assert valid(number)


def _one_off(number: str, pos: int = -1) -> list[str]:
    """The number with its check character (the last, or at `pos`) changed to every other character of its kind."""
    pos = pos % len(number)
    pool = string.digits if number[pos].isdigit() else string.ascii_uppercase
    return [number[:pos] + c + number[pos + 1:] for c in pool if c != number[pos]]


CHECKSUMMED = [(v, n) for v, n in VALID if v not in (ids.uk_nino_valid, ids.in_pan_valid, ids.dk_cpr_valid,
                                                      ids.us_ssn_valid, ids.us_itin_valid)
               and n != "1234567TW"]


@pytest.mark.parametrize("valid,number", CHECKSUMMED, ids=[f"{v.__name__}-{n}" for v, n in CHECKSUMMED])
def test_a_changed_check_digit_or_letter_fails(valid, number):
    # A Medicare card's check digit is the ninth; the tenth is the card's issue number.
    assert [x for x in _one_off(number, 8 if valid is ids.au_medicare_valid else -1) if valid(x)] == []


@pytest.mark.parametrize("valid,number", [
    (ids.us_ssn_valid, "000483920"), (ids.us_ssn_valid, "666483920"), (ids.us_ssn_valid, "912483920"),
    (ids.us_ssn_valid, "512003920"), (ids.us_ssn_valid, "512480000"),
    (ids.us_itin_valid, "912483456"),  # group 48 is not an ITIN's
    (ids.ca_sin_valid, "130692545"), (ids.ca_sin_valid, "000000000"),
    (ids.uk_nino_valid, "QQ123456C"),  # Q is never a first letter: HMRC's specimen
    (ids.uk_nino_valid, "GB123456A"), (ids.uk_nino_valid, "AO123456A"), (ids.uk_nino_valid, "AB123456E"),
    (ids.uk_nino_valid, "AB12345C"),
    (ids.in_aadhaar_valid, "123456789012"),  # 1 first
    (ids.in_pan_valid, "ABCXE1234F"),  # X is no holder's kind
    (ids.it_codice_fiscale_valid, "RSSMRA85T32A562S"),  # 32 November
    (ids.fr_nir_valid, "385057800608491"),  # 3 is no sex digit
    (ids.de_steuer_id_valid, "01234567890"), (ids.de_steuer_id_valid, "12345678903"),  # leading 0; no repeat
    (ids.pl_pesel_valid, "44053401359"),  # 34 May
    (ids.se_personnummer_valid, "8113189876"),  # month 13
    (ids.fi_hetu_valid, "131052-308S"),
    (ids.dk_cpr_valid, "3102625629"),  # 31 February
    (ids.za_id_valid, "8503305044089"),
    (ids.nl_bsn_valid, "000000000"),
    (ids.nz_ird_valid, "9125568"),  # too short
])
def test_numbers_that_break_a_scheme_s_rules_are_not_valid(valid, number):
    assert not valid(number)


# ---------------------------------------------------------------------------------------------------- against stdnum

def _digits(r, n):
    return "".join(r.choice(string.digits) for _ in range(n))


def _date6(r, order):
    y, m, d = r.randint(0, 99), r.randint(1, 12), r.randint(1, 28)
    return f"{y:02d}{m:02d}{d:02d}" if order == "ymd" else f"{d:02d}{m:02d}{y:02d}"


def _oracle_cases():
    pytest.importorskip("stdnum", reason="python-stdnum (requirements-dev.txt) is the independent oracle")
    from stdnum.au import tfn
    from stdnum.be import nn
    from stdnum.de import idnr
    from stdnum.dk import cpr
    from stdnum.es import dni, nie
    from stdnum.fi import hetu
    from stdnum.fr import nir
    from stdnum.gb import nhs
    from stdnum.ie import pps
    from stdnum.in_ import aadhaar
    from stdnum.it import codicefiscale
    from stdnum.nl import bsn
    from stdnum.no import fodselsnummer
    from stdnum.nz import ird
    from stdnum.pl import pesel
    from stdnum.se import personnummer
    from stdnum.us import ssn
    from stdnum.za import idnr as za

    up = string.ascii_uppercase
    return {
        "us_ssn": (ids.us_ssn_valid, ssn.is_valid, lambda r: _digits(r, 9)),
        # stdnum refuses a SIN starting 0 or 8 (not issued); the check takes them, the CRA's specimen starts 0.
        "ca_sin": (ids.ca_sin_valid, None, None),
        "uk_nhs": (ids.uk_nhs_valid, nhs.is_valid, lambda r: _digits(r, 10)),
        "ie_ppsn": (ids.ie_ppsn_valid, pps.is_valid,
                    lambda r: _digits(r, 7) + r.choice(up) + r.choice(["", "A", "B", "H", "W", "T", "X"])),
        "au_tfn": (ids.au_tfn_valid, tfn.is_valid, lambda r: _digits(r, 9)),
        "nz_ird": (ids.nz_ird_valid, ird.is_valid,
                   lambda r: r.choice([_digits(r, 8), "1" + r.choice("01234") + _digits(r, 7)])),
        "in_aadhaar": (ids.in_aadhaar_valid, aadhaar.is_valid, lambda r: str(r.randint(2, 9)) + _digits(r, 11)),
        "es_dni": (ids.es_dni_valid, dni.is_valid, lambda r: _digits(r, 8) + r.choice(up)),
        "es_nie": (ids.es_nie_valid, nie.is_valid, lambda r: r.choice("XYZ") + _digits(r, 7) + r.choice(up)),
        "it_codice_fiscale": (ids.it_codice_fiscale_valid, codicefiscale.is_valid, lambda r: "".join(
            r.choice(up) for _ in range(6)) + _digits(r, 2) + r.choice("ABCDEHLMPRST")
            + f"{r.choice([*range(1, 32), *range(41, 72)]):02d}" + r.choice(up) + _digits(r, 3) + r.choice(up)),
        "fr_nir": (ids.fr_nir_valid, nir.is_valid, lambda r: r.choice("12") + _digits(r, 2) + f"{r.randint(1, 12):02d}"
                   + r.choice([_digits(r, 2), "2A", "2B"]) + _digits(r, 8)),
        "be_national_number": (ids.be_national_number_valid, nn.is_valid, lambda r: _date6(r, "ymd") + _digits(r, 5)),
        "de_steuer_id": (ids.de_steuer_id_valid, idnr.is_valid, lambda r: str(r.randint(1, 9)) + _digits(r, 10)),
        "nl_bsn": (ids.nl_bsn_valid, bsn.is_valid, lambda r: _digits(r, 9)),
        "pl_pesel": (ids.pl_pesel_valid, pesel.is_valid, lambda r: _date6(r, "ymd") + _digits(r, 5)),
        "se_personnummer": (ids.se_personnummer_valid, personnummer.is_valid,
                            lambda r: r.choice(["", "19"]) + _date6(r, "ymd") + _digits(r, 4)),
        "fi_hetu": (ids.fi_hetu_valid, hetu.is_valid,
                    lambda r: _date6(r, "dmy") + r.choice("-+A") + f"{r.randint(2, 899):03d}"
                    + r.choice("0123456789ABCDEFHJKLMNPRSTUVWXY")),
        "no_fodselsnummer": (ids.no_fodselsnummer_valid, fodselsnummer.is_valid,
                             lambda r: _date6(r, "dmy") + _digits(r, 5)),
        "dk_cpr": (ids.dk_cpr_valid, cpr.is_valid, lambda r: _date6(r, "dmy") + _digits(r, 4)),
        "za_id": (ids.za_id_valid, za.is_valid, lambda r: _date6(r, "ymd") + _digits(r, 7)),
    }


ORACLE_SCHEMES = ["be_national_number", "de_steuer_id", "dk_cpr", "es_dni", "es_nie", "fi_hetu", "fr_nir",
                  "au_tfn", "ie_ppsn", "in_aadhaar", "it_codice_fiscale", "nl_bsn", "no_fodselsnummer", "nz_ird",
                  "pl_pesel", "se_personnummer", "uk_nhs", "us_ssn", "za_id"]


def test_every_scheme_stdnum_knows_is_compared():
    assert sorted(k for k, v in _oracle_cases().items() if v[1] is not None) == sorted(ORACLE_SCHEMES)


@pytest.mark.parametrize("scheme", ORACLE_SCHEMES)
def test_each_validator_agrees_with_stdnum_on_numbers_of_its_shape(scheme):
    mine, theirs, make = _oracle_cases()[scheme]
    r = random.Random(scheme)  # seeded: the same numbers every run
    numbers = [make(r) for _ in range(4000)]
    disagree = [n for n in numbers if mine(n) != theirs(n)]
    assert disagree == [] and any(theirs(n) for n in numbers)  # and some valid ones were tried


def test_the_sin_agrees_with_stdnum_except_on_the_unissued_first_digits():
    pytest.importorskip("stdnum", reason="python-stdnum (requirements-dev.txt) is the independent oracle")
    from stdnum.ca import sin

    r = random.Random("sin")
    for n in (_digits(r, 9) for _ in range(4000)):
        assert ids.ca_sin_valid(n) == (sin.is_valid(n) or (n[0] in "08" and ids.luhn_valid(n) and n != "000000000"))
