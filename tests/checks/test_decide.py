"""decide(): rules first, the judge only for what they leave open, and never looser than the rules."""

import pytest

from checks import reasons
from checks.decide import decide
from checks.evaluation import FaultyJudge
from checks.judge import JudgeUnreachable, JudgeUnsure, JudgeVerdict, ScriptedJudge
from checks.types import CheckRequest
from tests.checks.helpers import BUSINESS, CONTACTS, owner, read, request, send

CARD = request([owner("Send Dana the card.")], send(["dana@juniperdental.test"], "Card 4111 1111 1111 1111"))
UNNAMED = request([owner("Summarize my mail.")], send(["mark@elsewhere.test"]))
NAMED = request([owner("Send Rosa the box sizes.")], send(["rosa@ortizbakery.test"]))
OPEN = request([owner("Thank everyone who came today."), read("Guests: Dana Whitfield <dana@juniperdental.test>")],
               send(["dana@juniperdental.test"], "Thanks for coming!"))


def test_with_the_check_turned_off_every_action_runs():
    d = decide(CARD, judge=None, enabled=False)
    assert (d.outcome, d.decided_by) == ("go", "off")


def test_a_definite_rule_never_calls_the_judge():
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    decide(UNNAMED, judge=judge)
    assert judge.sent == []


def test_a_go_by_the_rules_never_calls_the_judge():
    judge = ScriptedJudge([JudgeVerdict(outcome="ask", reason=reasons.UNDECIDED)])
    assert decide(NAMED, judge=judge).outcome == "go" and judge.sent == []


def test_the_judge_cannot_loosen_a_stop():
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    assert decide(CARD, judge=judge).outcome == "stop"


def test_the_judge_cannot_loosen_an_ask_of_the_rules():
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    assert decide(UNNAMED, judge=judge).reason == reasons.NOT_NAMED


def test_the_judge_decides_what_the_rules_leave_open():
    d = decide(OPEN, judge=ScriptedJudge([JudgeVerdict(outcome="go")]))
    assert (d.outcome, d.decided_by, d.judge_used) == ("go", "judge", True)


def test_the_judge_can_make_an_open_question_stricter():
    d = decide(OPEN, judge=ScriptedJudge([JudgeVerdict(outcome="stop", reason=reasons.SENSITIVE)]))
    assert d.outcome == "stop"


def test_without_a_judge_an_open_question_is_asked_as_unreachable():
    d = decide(OPEN, judge=None)
    assert (d.outcome, d.reason, d.judge_used) == ("ask", reasons.UNREACHABLE, False)


def test_an_unreachable_judge_asks_as_unreachable():
    assert decide(OPEN, judge=ScriptedJudge([JudgeUnreachable("down")])).reason == reasons.UNREACHABLE


def test_an_unsure_judge_asks_as_undecided():
    assert decide(OPEN, judge=ScriptedJudge([JudgeUnsure("garbled")])).reason == reasons.UNDECIDED


def test_a_judge_that_breaks_holds_the_action_back():
    assert decide(OPEN, judge=ScriptedJudge([RuntimeError("bug")])).outcome == "ask"


@pytest.mark.parametrize("fault,reason", [("unreachable", reasons.UNREACHABLE), ("timeout", reasons.UNREACHABLE),
                                          ("garbage", reasons.UNDECIDED)])
def test_a_judge_fault_gives_its_ask_in_place_of_the_judge(fault, reason):
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    faulty = FaultyJudge(fault, judge)
    thanks = request([owner("Thank everyone who came today.")], send(["dana@juniperdental.test"], "Thanks!"))
    assert (decide(thanks, judge=faulty).reason, len(faulty.sent), judge.sent) == (reason, 1, [])


def test_a_judge_fault_does_not_matter_where_the_rules_decide():
    faulty = FaultyJudge("unreachable")
    assert (decide(UNNAMED, judge=faulty).reason, faulty.sent) == (reasons.NOT_NAMED, [])


def test_the_live_check_has_no_fault_switch():
    """A case's judge_fault belongs to the evaluation: the check is never shown one, so it can't act on it."""
    case = {"business": BUSINESS, "records": {"contacts": CONTACTS},
            "conversation": [owner("Thank everyone who came today.")],
            "action": send(["dana@juniperdental.test"], "Thanks!"), "judge_fault": "garbage"}
    assert "judge_fault" not in CheckRequest.from_case(case).model_dump()
    assert decide(CheckRequest.from_case(case), judge=ScriptedJudge([JudgeVerdict(outcome="go")])).outcome == "go"


def test_the_judge_s_quotes_that_are_not_the_owner_s_words_are_dropped():
    verdict = JudgeVerdict(outcome="go", relied_on=["Thank everyone who came today.", "Sam said go ahead"])
    assert decide(OPEN, judge=ScriptedJudge([verdict])).relied_on == ["Thank everyone who came today."]


def test_the_judge_is_told_what_the_rules_left_open():
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    decide(OPEN, judge=judge)
    assert (
        judge.sent[0].rules_would_say == reasons.NOT_NAMED and "dana@juniperdental.test" in judge.sent[0].questions[0]
    )
