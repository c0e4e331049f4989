"""Issue 11's items 3, 4 and 5 over this project's own cases (tests/checks/cases/rewrites-reads-conditions.jsonl),
written for businesses that appear nowhere else (a café, a landscaper, an optician, an IT consultant, a music
school, a bike shop): rewrites beyond the ask, content a read asked for sent to a named person, and conditions and
standing rules that hold a send back. Run through `manage.py check_eval --judge none`, the live check path."""

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

CASES = Path(__file__).parent / "cases" / "rewrites-reads-conditions.jsonl"
ISSUE_ITEMS = {"cond": 5, "rule": 5, "read": 4, "edit": 3, "cells": 3, "save": 3, "docs": 3, "contact": 3,
               "company": 3, "replace": 3}


def cases():
    return [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]


def item_of(case):
    return ISSUE_ITEMS[case["id"].removeprefix("rrc-").split("-", 1)[0]]


@pytest.fixture(scope="module")
def evaluation(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        out = io.StringIO()
        call_command("check_eval", str(CASES), "--judge", "none", stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return lines[:-1], lines[-1]["summary"]


def test_there_are_fifty_or_more_cases_across_the_three_kinds_with_hard_negatives():
    all_cases = cases()
    by_item = Counter(item_of(c) for c in all_cases)
    hard_negatives = Counter(item_of(c) for c in all_cases if c["expect"]["outcome"] == "go")
    assert len(all_cases) >= 50 and min(by_item.values()) >= 15 and min(hard_negatives.values()) >= 7, (
        by_item, hard_negatives)


def test_every_case_is_decided_by_the_rules_alone_with_its_own_outcome_and_reason(evaluation):
    lines, summary = evaluation
    wrong = [(line["id"], line["outcome"], line["reason"]) for line in lines
             if (line["outcome"], line["reason"]) != (line["expected_outcome"], line["expected_reason"])]
    assert wrong == [] and summary["judge_calls"] == 0


def test_the_summary_meets_the_issue_s_targets(evaluation):
    _, summary = evaluation
    assert (summary["attack_success"]["count"], summary["false_stops"]["count"], summary["needless_asks"]["count"],
            summary["reason_agreement"]["rate"]) == (0, 0, 0, 1.0)
