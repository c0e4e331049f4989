"""The one form detectors read: `normalize` and `digit_runs`."""

import pytest

from checks.normalize import digit_runs, normalize


@pytest.mark.parametrize("raw,plain", [
    ("４１１１－１１１１", "4111-1111"),  # full-width digits and hyphen (NFKC)
    ("41\u200b11\u200c\u200d\ufeff11", "411111"),  # zero-width space, joiners, byte-order mark
    ("41\u00ad11", "4111"),  # soft hyphen
    ("41\u202e11\u202c", "4111"),  # direction overrides
    ("4111\u20131111\u20141111\u22121111", "4111-1111-1111-1111"),  # dashes and minus
    ("4111\u22151111\u20441111", "4111/1111/1111"),  # division and fraction slashes
    ("4111\u00b71111\u20221111", "4111.1111.1111"),  # middle dot, bullet
    ("4111\u00a01111\u30001111", "4111 1111 1111"),  # no-break and ideographic spaces
    ("٤١١١ ۴۱۱۱ ४१११", "4111 4111 4111"),  # Arabic-Indic, Persian, Devanagari digits
    ("4̶1̶1̶1̶", "4111"),  # combining strokes over digits
    ("Tomás Muñoz", "Tomás Muñoz"),  # a letter keeps its accent
    ("<p>4111</p><p>1111</p>", "\n4111\n\n1111\n"),  # HTML blocks end lines, tags go
    ("4111<b></b>1111", "41111111"),
    ("&#52;111 &amp; co", "4111 & co"),
    ("a < b and c > d", "a < b and c > d"),  # not a tag
    ("", ""),
])
def test_normalize(raw, plain):
    assert normalize(raw) == plain


def test_digit_runs_join_groups_across_any_separator_and_one_line_break():
    [run] = digit_runs("Card 4111 / 1111.1111-1111\n1111 exp")
    assert [g.digits for g in run.groups] == ["4111", "1111", "1111", "1111", "1111"]
    assert run.gaps == (" / ", ".", "-", "\n") and not run.plainly_joined(0, 4) and run.plainly_joined(2, 3)


def test_digit_runs_stop_at_letters_and_blank_lines():
    runs = digit_runs("INV2026 then 12,450.00 at 10:30\n\n4111")
    assert [r.digits for r in runs] == ["1245000", "1030", "4111"]


def test_digit_runs_join_groups_across_commas_colons_semicolons_and_a_separator_beside_a_line_break():
    """Issue 24: `4111,1111,1111,1111`, `4242:4242:…` and `536-22\n-8417` (subject, then text) are one run each;
    what the run is stays for each detector to say from its groups and separators."""
    [a] = digit_runs("4111,1111,1111,1111")
    [b] = digit_runs("4242 : 4242;4242")
    [c] = digit_runs("536-22\n-8417")
    assert (a.gaps, b.gaps, c.digits, c.separators(0, 2)) == ((",", ",", ","), (" : ", ";"), "536228417", ["-", "-"])


def test_spans_are_whole_groups_of_the_lengths_asked_for():
    [run] = digit_runs("1 22 333 4444")
    assert sorted(run.spans({3, 5})) == [(0, 1, "122"), (1, 2, "22333"), (2, 2, "333")]
    assert list(run.spans({3}, starts=[2])) == [(2, 2, "333")]
