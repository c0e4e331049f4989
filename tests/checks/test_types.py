"""The check's words are the spec's, word for word: the reasons and the texts use_tool returns."""

import json
import re

import pytest
from pydantic import ValidationError

from checks import reasons
from checks.types import Decision
from tests.spec import spec_page


def spec_blocks():
    """The JSON examples of errors.md's "When the check holds an action back"."""
    section = spec_page("reference/errors.md").split("## When the check holds an action back")[1].split("## Reasons")[0]
    return [json.loads(b) for b in re.findall(r"```json\s*(\{.*?\})\s*```", section, re.S)]


def spec_reasons():
    table = spec_page("reference/errors.md").split("## Reasons")[1]
    return [m.group(2) for m in re.finditer(r"^\| (ask|stop) \| (.+?) \|$", table, re.M)]


def test_the_six_reasons_are_the_spec_s_word_for_word():
    assert sorted(spec_reasons()) == sorted(reasons.PRIORITY)


def test_each_reason_belongs_to_its_outcome_as_the_spec_says():
    table = spec_page("reference/errors.md").split("## Reasons")[1]
    pairs = {m.group(2): m.group(1) for m in re.finditer(r"^\| (ask|stop) \| (.+?) \|$", table, re.M)}
    assert all(reasons.outcome_of(r) == o for r, o in pairs.items())


def test_an_ask_returns_the_spec_s_not_done_yet_text():
    template = next(b for b in spec_blocks() if "not_done_yet" in b)["not_done_yet"]
    d = Decision(outcome="ask", reason=reasons.NOT_NAMED)
    assert d.as_tool_result("Sam") == {
        "not_done_yet": template.replace("<owner>", "Sam").replace("<reason>", reasons.NOT_NAMED)}


def test_a_stop_returns_the_spec_s_refused_text():
    template = next(b for b in spec_blocks() if "refused" in b)["refused"]
    d = Decision(outcome="stop", reason=reasons.SENSITIVE)
    assert d.as_tool_result("Sam") == {
        "refused": template.replace("<owner>", "Sam").replace("<reason>", reasons.SENSITIVE)
    }


def test_a_go_returns_nothing_in_place_of_the_tool_s_result():
    assert Decision(outcome="go").as_tool_result("Sam") is None


@pytest.mark.parametrize("outcome,reason", [("go", reasons.NOT_NAMED), ("ask", None), ("ask", reasons.SENSITIVE),
                                            ("stop", reasons.UNDECIDED), ("ask", "some other reason")])
def test_a_decision_s_reason_must_fit_its_outcome(outcome, reason):
    with pytest.raises(ValidationError):
        Decision(outcome=outcome, reason=reason)
