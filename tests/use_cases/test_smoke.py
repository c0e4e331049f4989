"""The smoke run (roadstar/smoke.py, `make smoke`) against an imperfect model of the suite's own, which makes the
mistakes real models make (tests/use_cases/imperfect_model.py): all seven use cases reach the spec's outcome, and
the report says what each cost and where the model went wrong. The report of this run is kept in the repository
(tests/use_cases/smoke-report-imperfect-model.md; set SMOKE_REPORT_KEEP=1 to write it there again)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from roadstar import smoke
from tests.use_cases.imperfect_model import ImperfectModel, script_seven

KEPT = Path(__file__).resolve().parent / "smoke-report-imperfect-model.md"


@pytest.fixture
def imperfect(settings):
    model = script_seven(ImperfectModel())
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY, settings.MODEL_CONFIGURED = model.url, "sk-smoke", True
    settings.CHECK_JUDGE = False  # no judge: the check asks Sam where its rules can't decide
    yield model
    model.stop()


def test_the_seven_use_cases_reach_the_specs_outcome_against_an_imperfect_model(fernhill, imperfect, tmp_path):
    report = tmp_path / "smoke-report.md"
    said: list[str] = []
    played = smoke.play(fernhill, report=report, say=said.append)
    assert [(p.case.name, p.reached) for p in played] == [(c.name, True) for c in smoke.USE_CASES], [
        (p.case.name, p.happened, p.wrong) for p in played]
    text = report.read_text()
    assert text.startswith("# Smoke run\n\n7 of 7 use cases reached the spec's outcome.")
    # Each mistake was met with the fix in one line, and the turn went on.
    wrong = "\n".join(w for p in played for w in p.wrong)
    for fix in ["Did you mean files.search?", "has no such input", "were cut off before their end",
                "Your last reply was empty", "Your last reply said what you would do"]:
        assert fix in wrong, fix
    assert all(p.calls > 0 and p.input_tokens > 0 and p.dollars > 0 for p in played)
    # (a tool's name as the model wrote it: functions.make_agent ran make_agent)
    assert played[0].tools["functions.make_agent"] == 1 and played[1].tools["files.replace_text"] == 5
    if os.environ.get("SMOKE_REPORT_KEEP"):
        KEPT.write_text(text)


def test_the_kept_report_is_this_runs_shape():
    text = KEPT.read_text()
    assert text.startswith("# Smoke run\n\n7 of 7 use cases reached the spec's outcome.")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == [c.name for c in smoke.USE_CASES]


def test_without_a_model_it_says_so_and_exits_0(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DATABASE_URL")}
    done = subprocess.run([sys.executable, "scripts/smoke.py"], cwd=django_settings.BASE_DIR, env=env,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, smoke.NO_MODEL), done.stderr
