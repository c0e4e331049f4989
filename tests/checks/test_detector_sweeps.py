"""Many generated texts at once, seeded so every run sees the same ones: everyday business numbers (phones of
several countries, dates, times, amounts, labelled references, postcodes) with and without ID cue words around
them find nothing; valid ID numbers of every scheme, written the usual ways next to their cue, are all found."""

import random
import string

import pytest

from checks import national_ids as ids
from checks.detectors import find_sensitive


def _d(r, n):
    return "".join(r.choice(string.digits) for _ in range(n))


def _phone(r):
    return r.choice([
        f"({_d(r, 3)}) {_d(r, 3)}-{_d(r, 4)}", f"{_d(r, 3)}-{_d(r, 3)}-{_d(r, 4)}", f"{_d(r, 3)}.{_d(r, 3)}.{_d(r, 4)}",
        f"+1 {_d(r, 3)} {_d(r, 3)} {_d(r, 4)}", f"+44 20 {_d(r, 4)} {_d(r, 4)}", f"07{_d(r, 3)} {_d(r, 6)}",
        f"+353 1 {_d(r, 3)} {_d(r, 4)}", f"08{_d(r, 1)} {_d(r, 3)} {_d(r, 4)}", f"+61 2 {_d(r, 4)} {_d(r, 4)}",
        f"04{_d(r, 2)} {_d(r, 3)} {_d(r, 3)}", f"+64 9 {_d(r, 3)} {_d(r, 4)}", f"+49 30 {_d(r, 8)}",
        f"+33 1 {_d(r, 2)} {_d(r, 2)} {_d(r, 2)} {_d(r, 2)}", f"+91 {_d(r, 5)} {_d(r, 5)}"])


def _date(r):
    y, m, d = r.randint(2020, 2030), r.randint(1, 12), r.randint(1, 28)
    return r.choice([f"{y}-{m:02d}-{d:02d}", f"{d:02d}/{m:02d}/{y}", f"{m}/{d}/{y}", f"{d:02d}.{m:02d}.{y}",
                     f"{d} Mar {y}", f"{y}{m:02d}{d:02d}"])


def _ref(r):
    label = r.choice(["Order", "Invoice", "Case", "Booking", "Ticket", "PO", "Ref", "Tracking", "Confirmation",
                      "Policy", "Claim", "Job", "Quote", "Member"])
    num = _d(r, r.randint(5, 12))
    if len(num) >= 8 and r.random() < 0.5:
        k = r.choice([3, 4])
        num = r.choice([" ", "-"]).join(num[i:i + k] for i in range(0, len(num), k))
    return f"{label} {r.choice(['', '#', 'no. ', 'number ', ': '])}{num}"


def _sentence(r):
    parts = [f"Call {_phone(r)}", f"about {_ref(r)}", f"on {_date(r)} at {r.randint(0, 23):02d}:{r.randint(0, 59):02d}",
             f"total ${r.randint(1, 99999):,}.{_d(r, 2)}", f"ship to OR {_d(r, 5)}-{_d(r, 4)}",
             f"{r.randint(1, 99)}% done", _ref(r), f"or {_phone(r)}", f"see {_date(r)} / {_date(r)}"]
    r.shuffle(parts)
    return r.choice([", ", "; ", ". ", "\n", " / "]).join(parts[:r.randint(2, 6)]) + "."


CUE_WORDS_ELSEWHERE = [
    "", "No SIN needed. ", "Bring your passport; ", "TFN declaration due, ", "NHS appointment: ", "Medicare rebate: ",
    "Password reset sent. ", "PIN pad fixed; ", "The door code changes soon. ", "Your social media post: ",
    "National Insurance contributions: ", "IRD return filed. ", "ID card printer jammed. ", "Tax ID form attached; ",
    "SSN not required. ", "Driver's licence renewal: ",
]


def test_everyday_numbers_with_or_without_cue_words_around_find_nothing():
    r = random.Random(20261110)
    texts = [r.choice(CUE_WORDS_ELSEWHERE) + _sentence(r) for _ in range(3000)]
    assert [(t, find_sensitive(t)) for t in texts if find_sensitive(t)] == []


def _until(r, make, valid):
    while True:
        x = make(r)
        if valid(x):
            return x


def _date6(r, order):
    y, m, d = r.randint(40, 99), r.randint(1, 12), r.randint(1, 28)
    return f"{y:02d}{m:02d}{d:02d}" if order == "ymd" else f"{d:02d}{m:02d}{y:02d}"


# scheme: (cue words, a valid number, how it is grouped when written in groups)
SCHEMES = {
    "us_ssn": (["SSN", "social security number", "Social Security No.", "SS#"],
               lambda r: _until(r, lambda r: _d(r, 9), ids.us_ssn_valid), [3, 2, 4]),
    "ca_sin": (["SIN", "social insurance number", "S.I.N.", "Social Insurance No."],
               lambda r: _until(r, lambda r: _d(r, 9), ids.ca_sin_valid), [3, 3, 3]),
    "au_tfn": (["TFN", "tax file number", "Tax File No."],
               lambda r: _until(r, lambda r: _d(r, 9), ids.au_tfn_valid), [3, 3, 3]),
    "nz_ird": (["IRD number", "IRD no."], lambda r: _until(r, lambda r: _d(r, 8), ids.nz_ird_valid), [2, 3, 3]),
    "in_aadhaar": (["Aadhaar", "Aadhaar number"],
                   lambda r: _until(r, lambda r: str(r.randint(2, 9)) + _d(r, 11), ids.in_aadhaar_valid), [4, 4, 4]),
    "uk_nhs": (["NHS number", "NHS no."], lambda r: _until(r, lambda r: _d(r, 10), ids.uk_nhs_valid), [3, 3, 4]),
    "nl_bsn": (["BSN", "burgerservicenummer"], lambda r: _until(r, lambda r: _d(r, 9), ids.nl_bsn_valid), [4, 2, 3]),
    "de_steuer_id": (["Steuer-ID", "Steueridentifikationsnummer"],
                     lambda r: _until(r, lambda r: str(r.randint(1, 9)) + _d(r, 10), ids.de_steuer_id_valid),
                     [2, 3, 3, 3]),
    "pl_pesel": (["PESEL"], lambda r: _until(r, lambda r: _date6(r, "ymd") + _d(r, 5), ids.pl_pesel_valid), None),
    "be_national_number": (["rijksregisternummer", "national number"],
                           lambda r: _until(r, lambda r: _date6(r, "ymd") + _d(r, 5), ids.be_national_number_valid),
                           [2, 2, 2, 3, 2]),
    "se_personnummer": (["personnummer"],
                        lambda r: _until(r, lambda r: _date6(r, "ymd") + _d(r, 4), ids.se_personnummer_valid), [6, 4]),
    "no_fodselsnummer": (["fødselsnummer"],
                         lambda r: _until(r, lambda r: _date6(r, "dmy") + _d(r, 5), ids.no_fodselsnummer_valid),
                         [6, 5]),
    "dk_cpr": (["CPR-nummer", "CPR number"],
               lambda r: _until(r, lambda r: _date6(r, "dmy") + _d(r, 4), ids.dk_cpr_valid), [6, 4]),
    "za_id": (["SA ID number", "South African ID"],
              lambda r: _until(r, lambda r: _date6(r, "ymd") + _d(r, 7), ids.za_id_valid), [6, 4, 3]),
    "au_medicare": (["Medicare card", "Medicare number"],
                    lambda r: _until(r, lambda r: str(r.randint(2, 6)) + _d(r, 9), ids.au_medicare_valid), [4, 5, 1]),
    "ie_ppsn": (["PPS number", "PPSN"],
                lambda r: _until(r, lambda r: _d(r, 7) + r.choice(string.ascii_uppercase) + r.choice(["", "A"]),
                                 ids.ie_ppsn_valid),
                None),
    "es_dni": (["DNI", "NIF"],
               lambda r: _until(r, lambda r: _d(r, 8) + r.choice(string.ascii_uppercase), ids.es_dni_valid), None),
    "es_nie": (["NIE"],
               lambda r: _until(r, lambda r: r.choice("XYZ") + _d(r, 7) + r.choice(string.ascii_uppercase),
                                ids.es_nie_valid),
               None),
}
TEMPLATES = ["{cue}: {num}", "My {cue} is {num}.", "Her {cue} is {num}, thanks.", "{num} ({cue})", "{cue}\n{num}",
             "{cue} {num}", "Name: Sam Lee\n{cue}: {num}\nStart: Monday", "Here is the {cue} you asked for: {num}"]


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_valid_numbers_next_to_their_cue_are_all_found(scheme):
    cues, make, sizes = SCHEMES[scheme]
    r = random.Random(scheme)
    missed = []
    for _ in range(150):
        number = make(r)
        if sizes and r.random() < 0.6:
            parts, i = [], 0
            for k in sizes:
                parts.append(number[i:i + k])
                i += k
            number = r.choice([" ", "-", ".", "/"]).join(parts)
        text = r.choice(TEMPLATES).format(cue=r.choice(cues), num=number)
        if not find_sensitive(text):
            missed.append(text)
    assert missed == []
