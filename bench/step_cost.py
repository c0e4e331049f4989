"""The cost of a step: a thread whose scripted model calls `contacts.find` N times through the real runtime (the
same code path as production: the run queue, the turn, use_tool, every row written), against the OpenAI Agents
SDK's in-memory runner doing the same with a fake model (bench/sdk_anchor.py, in its own venv, started from here
so both run in one process tree). Interleaved, each side 5 times at each N; median and spread in ms a step.
Neither fake model does work of its own: the SDK's returns a made response, and Roadstar's scripted one is given
its usage, so it doesn't measure the prompt to guess one.

    python bench/step_cost.py             # the table, on a fresh SQLite database in a temporary folder
    python bench/step_cost.py --postgres  # the same on a fresh PostgreSQL database (127.0.0.1:5432), dropped after
    python bench/step_cost.py --profile   # cProfile's top entries for one turn of 20 steps (--checked: updates)
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDK_VENV = ROOT / "var" / "bench-sdk-venv"
SDK_REQUIREMENTS = ROOT / "bench" / "requirements-sdk.txt"
STEPS = (20, 200)
REPEAT = 5


def sdk_python() -> Path | None:
    """The anchor's venv, made once (pinned in bench/requirements-sdk.txt); None where it can't be installed."""
    python = SDK_VENV / "bin" / "python"
    stamp = SDK_VENV / ".installed"
    if stamp.exists() and stamp.read_text() == SDK_REQUIREMENTS.read_text():
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", str(SDK_VENV)], check=True, capture_output=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", str(SDK_REQUIREMENTS)], check=True,
                       capture_output=True, timeout=600)
    except (subprocess.SubprocessError, OSError) as error:
        print(f"(the Agents SDK anchor could not be installed: {error})")
        return None
    stamp.write_text(SDK_REQUIREMENTS.read_text())
    return python


def sdk_ms_per_step(python: Path, n: int) -> float:
    done = subprocess.run([str(python), str(ROOT / "bench" / "sdk_anchor.py"), str(n)], check=True,
                          capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])[str(n)]


ASKED = "Dana Whitfield's job title keeps changing: update it to Practice manager or Office manager as I say."
TITLES = ("Practice manager", "Office manager")


def roadstar_ms_per_step(n: int, label: str, profiler=None, *, checked: bool = False) -> tuple[float, int]:
    """One thread of n tool-calling steps, drained in this process; ms a step and queries a step. Unchecked, each
    step is `contacts.find` (needs no yes); `checked`, each is `contacts.update` of Dana's job title, which the
    owner asked for, so the check reads, decides and lets it go. `profiler`, a cProfile.Profile, profiles the drain
    alone (not the workspace's making)."""
    from django.db import connection

    from agents import services
    from agents.runtime import scheduler, turn
    from agents.runtime.model import ModelUsage, ScriptedModel, call, say, set_model
    from agents.runtime.turn import drain
    from bench.common import make_workspace
    from contacts.services import contact_create
    from core.actors import Actor

    _, org, desk = make_workspace(label)
    org.check_enabled = checked
    org.save(update_fields=["check_enabled"])
    dana = contact_create(org=org, actor=Actor.system(), name="Dana Whitfield", emails=["dana@juniperdental.test"])
    if checked:
        contact_create(org=org, actor=Actor.system(), name="Lee Park", emails=["lee@juniperdental.test"])
        asked = ASKED
        steps = [call("use_tool", {"name": "contacts.update",
                                   "input": {"contactId": str(dana.id), "jobTitle": TITLES[i % 2]}})
                 for i in range(n)]
    else:
        asked = "Find Dana"
        steps = [call("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}})
                 for _ in range(n)]
    script = [call("start_thread", {"title": "Juniper Dental", "task": asked}), say("Started."), *steps,
              say("Done.")]
    for response in script:
        response.usage = ModelUsage(input_tokens=1_000, output_tokens=20)
    model = ScriptedModel(script)
    set_model(model)
    steps_limit, turn.THREAD_STEPS = turn.THREAD_STEPS, n + 5  # the spec's 40 would stop it: this measures a long one
    # drain() runs the queue here, one turn after another; the bench process runs worker tasks inline (Q_SYNC), and
    # dispatch would start the thread's turn inside the chat's.
    dispatch, scheduler.dispatch = scheduler.dispatch, lambda **_: []
    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    try:
        services.owner_message_send(org=org, agent=desk, text=asked)
        with connection.execute_wrapper(count):
            if profiler is not None:
                profiler.enable()
            start = time.perf_counter()
            drain(org_id=org.id)
            took = time.perf_counter() - start
            if profiler is not None:
                profiler.disable()
    finally:
        set_model(None)
        turn.THREAD_STEPS = steps_limit
        scheduler.dispatch = dispatch
    taken = len(model.requests)
    assert taken == n + 3, f"the scripted thread took {taken} steps, not {n + 3}"
    if checked:
        from checks.models import CheckDecision

        outcomes = set(CheckDecision.objects.filter(organization=org).values_list("outcome", flat=True))
        assert outcomes == {"go"}, outcomes
    return took * 1000 / taken, round(queries[0] / taken)


def spread(samples: list[float]) -> str:
    return f"{statistics.median(samples):.1f} ({min(samples):.1f}–{max(samples):.1f})"


# The rows: which tool each step calls and how many steps the thread takes.
ROWS = (("contacts.find", 20), ("contacts.find", 200), ("contacts.update, checked", 20),
        ("contacts.update, checked", 200))


def run(out, *, database: str = "SQLite") -> None:
    python = sdk_python()
    out(f"## The cost of a step on {database} (ms a step: median, and min–max of {REPEAT} interleaved runs)\n")
    out("| step | N steps | Agents SDK (in memory) | Roadstar | Roadstar / SDK | Roadstar queries a step |")
    out("| --- | ---: | ---: | ---: | ---: | ---: |")
    # Imports and first-call caches, as the SDK's side warms; and the kept statements prepared and planned, as on a
    # worker's connection after its first turns: PostgreSQL plans a prepared statement afresh for its first five
    # runs (then keeps a generic plan), after psycopg's own five unprepared (roadstar/settings/base.py), so a
    # statement is at its steady cost from its eleventh run on a connection.
    roadstar_ms_per_step(12, "steps-warm")
    roadstar_ms_per_step(12, "steps-warm-checked", checked=True)
    for tool, n in ROWS:
        checked = "checked" in tool
        sdk, ours, queries = [], [], 0
        for i in range(REPEAT):
            if python is not None:
                sdk.append(sdk_ms_per_step(python, n))
            ms, queries = roadstar_ms_per_step(n, f"steps-{n}-{i}{'-checked' if checked else ''}", checked=checked)
            ours.append(ms)
        ratio = f"{statistics.median(ours) / statistics.median(sdk):.2f}x" if sdk else "no anchor"
        out(f"| {tool} | {n} | {spread(sdk) if sdk else '—'} | {spread(ours)} | {ratio} | {queries} |")
    out("")


def profile(out, n: int = 20, *, checked: bool = False) -> None:
    """cProfile's top entries for one turn of n steps (after one turn to warm up), by cumulative and own time."""
    import cProfile
    import io
    import pstats

    roadstar_ms_per_step(n, "profile-warm", checked=checked)
    profiler = cProfile.Profile()
    roadstar_ms_per_step(n, "profile", profiler, checked=checked)
    for order, count in (("cumulative", 30), ("tottime", 15)):
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats(order).print_stats(count)
        out(text.getvalue())


def main() -> None:
    import contextlib
    import os
    import tempfile

    sys.path.insert(0, str(ROOT))
    from bench.common import fresh_postgres, postgres_available

    postgres = "--postgres" in sys.argv
    if postgres and not postgres_available():
        raise SystemExit(1)
    folder = tempfile.mkdtemp(prefix="roadstar-step-cost-")
    os.environ.setdefault("SQLITE_PATH", str(Path(folder) / "bench.sqlite3"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")
    os.environ.setdefault("SECRET_KEY", "bench-only-key")
    os.environ.setdefault("DEBUG", "0")  # DEBUG keeps every query in memory: not what is measured
    os.environ.setdefault("Q_SYNC", "1")
    with fresh_postgres(os.environ.get("BENCH_DATABASE_PREFIX", "roadstar_step_cost")) if postgres \
            else contextlib.nullcontext() as database_url:
        if database_url:
            os.environ["DATABASE_URL"] = database_url
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        try:
            if "--profile" in sys.argv:
                profile(print, checked="--checked" in sys.argv)
            else:
                run(print, database="PostgreSQL" if postgres else "SQLite")
        finally:
            connections.close_all()


if __name__ == "__main__":
    main()
