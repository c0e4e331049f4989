"""Whole case files in the format of shared/check-cases/FORMAT.md, each in a fresh workspace through the live
path (request_for_workspace, then decide): the public dev set, and this project's own cases with other wording,
names and addresses (tests/checks/cases/*.jsonl)."""

import json
from pathlib import Path

import pytest

from checks import reasons
from checks.evaluation import FAULT_REASONS, run_case
from checks.judge import JudgeVerdict, ScriptedJudge
from tests.spec import SHARED, needs_shared

HERE = Path(__file__).parent
DEV = SHARED / "check-cases" / "dev.jsonl"
OWN = sorted((HERE / "cases").glob("*.jsonl"))
VERDICTS = {k: v for k, v in json.loads((HERE / "judge_verdicts.json").read_text()).items() if not k.startswith("_")}


def load(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# Without shared/ beside the repository the public dev set is absent: this project's own cases still run.
DEV_CASES = load(DEV) if DEV.is_file() else []
OWN_CASES = [c for p in OWN for c in load(p)]
ALL = DEV_CASES + OWN_CASES


def ids(cases):
    return [c["id"] for c in cases]


def no_judge(cases):
    return [c for c in cases if not c["expect"]["needs_judge"]]


def judged(cases):
    return [c for c in cases if c["expect"]["needs_judge"]]


@needs_shared
def test_the_dev_set_is_all_there():
    assert len(DEV_CASES) == 86


def test_this_project_has_twenty_or_more_cases_of_its_own():
    assert len(OWN_CASES) >= 20 and not set(ids(OWN_CASES)) & set(ids(DEV_CASES))


@pytest.mark.django_db
@pytest.mark.parametrize("case", no_judge(ALL), ids=ids(no_judge(ALL)))
def test_a_case_that_needs_no_judge_gets_its_outcome_and_reason_without_one(case):
    d = run_case(case, judge=None)
    assert (d.outcome, d.reason) == (case["expect"]["outcome"], case["expect"]["reason"])


@pytest.mark.django_db
@pytest.mark.parametrize("case", judged(ALL), ids=ids(judged(ALL)))
def test_a_case_that_needs_a_judge_is_not_let_through_without_one(case):
    d = run_case(case, judge=None)
    if case.get("judge_fault"):
        expected = ("ask", FAULT_REASONS[case["judge_fault"]])
    elif d.decided_by == "rules" and d.reason != reasons.UNREACHABLE:
        # The rules decided it alone: then they must reach the case's own answer.
        expected = (case["expect"]["outcome"], case["expect"]["reason"])
    else:
        expected = ("ask", reasons.UNREACHABLE)
    assert (d.outcome, d.reason) == expected


@pytest.mark.django_db
@pytest.mark.parametrize("case", judged(ALL), ids=ids(judged(ALL)))
def test_a_case_that_needs_a_judge_reaches_its_outcome_with_a_sensible_one(case):
    judge = ScriptedJudge([JudgeVerdict.model_validate(VERDICTS[case["id"]])])
    d = run_case(case, judge=judge)
    assert (d.outcome, d.reason) == (case["expect"]["outcome"], case["expect"]["reason"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "case", [c for c in ALL if c.get("judge_fault")], ids=ids([c for c in ALL if c.get("judge_fault")])
)
def test_every_judge_fault_gives_its_ask_even_with_a_judge_that_would_say_go(case):
    # Where the judge is called, the fault's own ask; where the rules decide, the rule's reason: the fault can't
    # matter there, so a case the rules decide expects the rule's answer.
    judge = ScriptedJudge([JudgeVerdict(outcome="go")])
    d = run_case(case, judge=judge)
    expected = (case["expect"]["outcome"], case["expect"]["reason"])
    if case["expect"]["needs_judge"]:
        expected = ("ask", FAULT_REASONS[case["judge_fault"]])
    assert ((d.outcome, d.reason), judge.sent) == (expected, [])


@pytest.mark.django_db
@pytest.mark.parametrize("case", no_judge(ALL), ids=ids(no_judge(ALL)))
def test_a_case_the_rules_decide_never_calls_the_judge(case):
    """The judge's faults can't matter where a rule decides: a judge that would let anything through is never
    asked, and the rule's own answer stands."""
    judge = ScriptedJudge(answer=lambda r: JudgeVerdict(outcome="go"))
    d = run_case(case, judge=judge)
    assert ((d.outcome, d.reason), judge.sent, d.judge_used) == (
        (case["expect"]["outcome"], case["expect"]["reason"]), [], False)


@pytest.mark.django_db
def test_no_attack_case_goes_with_a_judge_that_always_says_go():
    # The worst judge there is: it can't loosen what the rules hold back, so no attack the rules see goes.
    went = [c["id"] for c in ALL if c["group"] == "attack" and c["expect"]["needs_judge"] is False
            and run_case(c, judge=ScriptedJudge(answer=lambda r: JudgeVerdict(outcome="go"))).outcome == "go"]
    assert went == []
