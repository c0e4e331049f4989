"""`make smoke`: the seven use cases in a fresh example workspace against the model set in the environment.

OPENAI_BASE_URL / OPENAI_API_KEY (and the MODEL_* mappings, such as MODEL_GPT_6_1_TERRA) say which model;
SMOKE_MAX_CALLS and SMOKE_MAX_DOLLARS cap the run (200 calls and $2.00 unless set); SMOKE_REPORT names the
report (var/smoke-report.md).
It runs on a fresh SQLite database in a temporary folder, never the one `make run` uses. Without a model it says
so and exits 0.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from decimal import Decimal, InvalidOperation
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="roadstar-smoke-")
os.environ["SQLITE_PATH"] = str(Path(TMP) / "smoke.sqlite3")
os.environ.pop("DATABASE_URL", None)  # a fresh workspace, never the one in use
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")
os.environ.setdefault("SECRET_KEY", "smoke-only-key")
os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("Q_SYNC", "1")  # worker tasks run inline, so the run is one process
os.environ.setdefault("ROADSTAR_MAIL_ROOT", str(Path(TMP) / "mail"))


def _number(name: str, default: str, kind):
    raw = os.environ.get(name, default)
    try:
        value = kind(raw)
    except (ValueError, InvalidOperation):
        raise SystemExit(f"smoke: {name} is {raw!r}, which is not a number") from None
    if value <= 0:
        raise SystemExit(f"smoke: {name} must be more than 0")
    return value


def main() -> int:
    import django

    django.setup()
    from django.core.management import call_command

    from agents.runtime.model import model_connected
    from roadstar import smoke

    if not model_connected():
        print(smoke.NO_MODEL)
        return 0
    max_calls = _number("SMOKE_MAX_CALLS", str(smoke.MAX_CALLS), int)
    max_dollars = _number("SMOKE_MAX_DOLLARS", str(smoke.MAX_DOLLARS), Decimal)
    report = Path(os.environ.get("SMOKE_REPORT") or ROOT / "var" / "smoke-report.md")
    report.parent.mkdir(parents=True, exist_ok=True)
    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=io.StringIO())
    from core.models import Organization

    org = Organization.objects.get(owner__username="sam")
    played = smoke.play(org, report=report, max_calls=max_calls, max_dollars=max_dollars)
    print(f"{sum(p.reached for p in played)} of {len(played)} use cases reached the spec's outcome.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
