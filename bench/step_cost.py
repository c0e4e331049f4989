"""The cost of a step: a thread whose scripted model calls `contacts.find` N times through the real runtime (the
same code path as production: the run queue, the turn, use_tool, every row written), against the OpenAI Agents
SDK's in-memory runner doing the same with a fake model (bench/sdk_anchor.py, in its own venv, started from here
so both run in one process tree). Interleaved, each side 5 times at each N; median and spread in ms a step.
Neither fake model does work of its own: the SDK's returns a made response, and Roadstar's scripted one is given
its usage, so it doesn't measure the prompt to guess one.

    python bench/step_cost.py             # the table, on a fresh SQLite database in a temporary folder
    python bench/step_cost.py --profile   # and cProfile's top entries for one turn of 20 steps
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


def roadstar_ms_per_step(n: int, label: str, profiler=None) -> tuple[float, int]:
    """One thread of n tool-calling steps, drained in this process; ms a step and queries a step. `profiler`, a
    cProfile.Profile, profiles the drain alone (not the workspace's making)."""
    from django.db import connection

    from agents import services
    from agents.runtime import scheduler, turn
    from agents.runtime.model import ModelUsage, ScriptedModel, call, say, set_model
    from agents.runtime.turn import drain
    from bench.common import make_workspace
    from contacts.services import contact_create
    from core.actors import Actor

    _, org, desk = make_workspace(label)
    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    contact_create(org=org, actor=Actor.system(), name="Dana Whitfield", emails=["dana@juniperdental.test"])
    find = {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}
    script = [call("start_thread", {"title": "Juniper Dental", "task": "Find Dana"}), say("Started."),
              *[call("use_tool", find) for _ in range(n)], say("Found.")]
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
        services.owner_message_send(org=org, agent=desk, text="Find Dana")
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
    steps = len(model.requests)
    assert steps == n + 3, f"the scripted thread took {steps} steps, not {n + 3}"
    return took * 1000 / steps, round(queries[0] / steps)


def spread(samples: list[float]) -> str:
    return f"{statistics.median(samples):.1f} ({min(samples):.1f}–{max(samples):.1f})"


def run(out) -> None:
    python = sdk_python()
    out("## The cost of a step (ms a step: median, and min–max of 5 interleaved runs)\n")
    out("| N steps | Agents SDK (in memory) | Roadstar | Roadstar / SDK | Roadstar queries a step |")
    out("| ---: | ---: | ---: | ---: | ---: |")
    roadstar_ms_per_step(3, "steps-warm")  # imports and first-call caches (kept statements), as the SDK's side warms
    for n in STEPS:
        sdk, ours, queries = [], [], 0
        for i in range(REPEAT):
            if python is not None:
                sdk.append(sdk_ms_per_step(python, n))
            ms, queries = roadstar_ms_per_step(n, f"steps-{n}-{i}")
            ours.append(ms)
        ratio = f"{statistics.median(ours) / statistics.median(sdk):.2f}x" if sdk else "no anchor"
        out(f"| {n} | {spread(sdk) if sdk else '—'} | {spread(ours)} | {ratio} | {queries} |")
    out("")


def profile(out, n: int = 20) -> None:
    """cProfile's top entries for one turn of n steps (after one turn to warm up), by cumulative and own time."""
    import cProfile
    import io
    import pstats

    roadstar_ms_per_step(n, "profile-warm")
    profiler = cProfile.Profile()
    roadstar_ms_per_step(n, "profile", profiler)
    for order, count in (("cumulative", 30), ("tottime", 15)):
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats(order).print_stats(count)
        out(text.getvalue())


def main() -> None:
    import os
    import tempfile

    sys.path.insert(0, str(ROOT))
    folder = tempfile.mkdtemp(prefix="roadstar-step-cost-")
    os.environ.setdefault("SQLITE_PATH", str(Path(folder) / "bench.sqlite3"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")
    os.environ.setdefault("SECRET_KEY", "bench-only-key")
    os.environ.setdefault("DEBUG", "0")  # DEBUG keeps every query in memory: not what is measured
    os.environ.setdefault("Q_SYNC", "1")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if "--profile" in sys.argv:
        profile(print)
    else:
        run(print)


if __name__ == "__main__":
    main()
