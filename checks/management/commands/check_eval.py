"""`python manage.py check_eval FILE.jsonl [--judge none|scripted|openai] [--verdicts FILE.json]`

Runs every case of a file in the format of `shared/check-cases/FORMAT.md`, each in a fresh workspace built from
the case (an owner, an Organization, its contacts and their companies, rolled back afterwards), through the same
path as a live action: `request_for_workspace` then `decide`. Prints one JSON line per case, then the summary.

`--judge none` runs without a model (what the rules can't decide is asked about as "couldn't be reached");
`--judge scripted` answers each case the judge is called for from `--verdicts`, a JSON object of case id to
`{"outcome", "reason"}` (a case without one gets an unusable answer: "couldn't decide"); `--judge openai` calls the
configured model. A case's `judge_fault` is simulated whichever judge is chosen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from checks.evaluation import CaseResult, run_case, summarize
from checks.judge import Judge, JudgeUnsure, JudgeVerdict, ScriptedJudge, configured_judge


class Command(BaseCommand):
    help = "Run the owner's-yes check over a file of check cases and print each result and the summary."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--judge", choices=("none", "scripted", "openai"), default="none")
        parser.add_argument("--verdicts", type=Path, help="For --judge scripted: case id -> {outcome, reason}.")

    def handle(self, *args: Any, file: Path, judge: str, verdicts: Path | None, **options: Any) -> None:
        if not file.exists():
            raise CommandError(f"no such file: {file}")
        scripted: dict[str, Any] = {}
        if judge == "scripted":
            if verdicts is None:
                raise CommandError("--judge scripted needs --verdicts FILE.json")
            scripted = json.loads(verdicts.read_text())
        model: Judge | None = configured_judge() if judge == "openai" else None
        if judge == "openai" and model is None:
            raise CommandError("--judge openai: no model is connected (OPENAI_BASE_URL or OPENAI_API_KEY), "
                               "or CHECK_JUDGE is off")

        results = []
        for number, line in enumerate(file.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{file}:{number}: not JSON: {exc}") from exc
            if judge == "scripted":
                model = _scripted_for(case.get("id"), scripted)
            decision = run_case(case, judge=model)
            result = CaseResult.of(case, decision)
            results.append(result)
            self.stdout.write(json.dumps(result.line()))
        self.stdout.write(json.dumps({"summary": summarize(results)}))


def _scripted_for(case_id: str | None, scripted: dict[str, Any]) -> ScriptedJudge:
    verdict = scripted.get(case_id) if case_id is not None else None
    if verdict is None:
        return ScriptedJudge([JudgeUnsure(f"no scripted verdict for {case_id}")])
    return ScriptedJudge([JudgeVerdict.model_validate(verdict)])
