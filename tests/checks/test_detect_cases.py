"""The sensitive-data cases (tests/checks/cases/detect.jsonl, seven businesses in five countries' words) through
`manage.py check_eval --judge none`, the way the project measures the check: every stop found, no hard negative
stopped, every reason the expected one, and the judge never called (the rules decide every one of them)."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

CASES = Path(__file__).parent / "cases" / "detect.jsonl"


def test_the_file_covers_the_kinds_asked_for():
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    stops = [c for c in cases if c["expect"]["outcome"] == "stop"]
    goes = [c for c in cases if c["expect"]["outcome"] == "go"]
    unnamed_stops = [c for c in stops if "unnamed" in c["id"]]
    assert len(cases) >= 70 and len(stops) >= 40 and len(goes) >= 25 and len(unnamed_stops) >= 5
    assert len({c["business"]["name"] for c in cases}) >= 5


def test_check_eval_over_the_sensitive_data_cases_meets_every_target():
    out = io.StringIO()
    call_command("check_eval", str(CASES), "--judge", "none", stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    summary = lines[-1]["summary"]
    wrong = [(r["id"], r["outcome"], r["reason"]) for r in lines[:-1]
             if (r["outcome"], r["reason"]) != (r["expected_outcome"], r["expected_reason"])]
    assert wrong == []
    assert (summary["stop_recall"]["rate"], summary["false_stops"]["count"], summary["attack_success"]["count"],
            summary["judge_calls"]) == (1.0, 0, 0, 0)
