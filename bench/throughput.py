"""Throughput: how many steps a second the worker pushes through real turns, against how many requests a second
the fake model server alone serves one client.

A fake OpenAI-compatible server (in this process) answers each thread's request with a `use_tool` call of
`contacts.find` until the thread has its results (4 or 20: threads of 5 and 21 model steps), then with an
answer. Threads are queued all at once (each with a packet and a piece of work, as a chat's start_thread makes
them) and `manage.py worker` (django-q2's cluster, the number of worker processes from Q_WORKERS) runs them over
the real wire, with the `openai` client, the queue and every row written. Steps a second = the threads' model
requests over the time from the first to the last.

The baseline: one client (the same `openai` client, in a process of its own) sending the requests the threads
sent, recorded by the server, back to back to the same server: what the server alone serves one client.

    python bench/throughput.py                  # the embedded default: SQLite in a temporary folder, one worker
    python bench/throughput.py --postgres       # PostgreSQL (127.0.0.1:5432), 1, 2 and 4 worker processes
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import FakeModel, fresh_postgres, postgres_available, wait_for  # noqa: E402

LENGTHS = (5, 21)  # model steps a thread takes: its tool steps, then the answer
MARK = "throughput-bench"
REPEAT = 3


class ThreadsModel(FakeModel):
    """Answers a thread with a contacts.find call until it holds `tool_steps` results, then with an answer; keeps
    when each request arrived and its body, for the threads this bench started (their packet carries MARK)."""

    def __init__(self):
        super().__init__()
        self.tool_steps = LENGTHS[-1] - 1
        self.reset()

    def reply(self, request: dict) -> tuple[dict, str]:
        results = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        if results < self.tool_steps:
            return {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                "function": {"name": "use_tool", "arguments": json.dumps(
                    {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}})},
            }]}, "tool_calls"
        return {"role": "assistant", "content": "Found."}, "stop"

    def seen(self, raw: bytes, request: dict, arrived: float, finish: str) -> None:
        if any(MARK in (m.get("content") or "") for m in request.get("messages", [])[:3]):
            with self.lock:
                self.arrivals.append(arrived)
                self.bodies.append(raw)
                self.answered += finish == "stop"

    def reset(self) -> None:
        with self.lock:
            self.arrivals: list[float] = []
            self.bodies: list[bytes] = []
            self.answered = 0


# Run by `manage.py shell`: a workspace with `agents` agents, and `threads` threads queued at once, spread over them.
QUEUE_THREADS = """
from django.db import transaction
from agents import services
from agents.models import Agent, Message
from agents.runtime.scheduler import wake
from bench.common import make_workspace
_, org, first = make_workspace("{name}")
org.check_enabled = False
org.save(update_fields=["check_enabled"])
staff = [first] + [Agent.objects.create(organization=org, name=f"Desk {{i}}") for i in range(1, {agents})]
for i in range({threads}):
    agent = staff[i % len(staff)]
    thread = services.thread_start(agent=agent, title=f"Bench {{i}}")
    with transaction.atomic():
        services.message_append(conversation=thread, role=Message.Role.HANDOFF,
                                text="[From {mark}] Find Dana Whitfield, again and again")
        services.work_open(org=org, agent=agent, conversation=thread, task="Find Dana", requester=None)
        wake(conversation=thread)
"""

# Run in a process of its own: the recorded requests sent back to back by one openai client; prints requests/s.
BASELINE_CLIENT = """
import json, sys, time
import openai
bodies = [json.loads(line) for line in open(sys.argv[1])]
client = openai.OpenAI(api_key="bench", base_url=sys.argv[2], max_retries=0)
client.chat.completions.create(**bodies[0])
start = time.perf_counter()
for body in bodies:
    client.chat.completions.create(**body)
print(len(bodies) / (time.perf_counter() - start))
"""


def roadstar_steps_per_second(model: ThreadsModel, env: dict, *, workers: int, threads: int, agents: int,
                              label: str) -> float:
    """Start a worker cluster of `workers` processes, queue the threads, and time their steps."""
    folder = Path(env["BENCH_FOLDER"])
    log = open(folder / f"worker-{label}.log", "w")
    worker = subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=ROOT, env={**env, "Q_WORKERS": str(workers)},
                              stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        time.sleep(3)  # the cluster warms up (imports) and forks its workers before any work is queued
        model.reset()
        subprocess.run([sys.executable, "manage.py", "shell", "-c",
                        QUEUE_THREADS.format(name=label, agents=agents, threads=threads, mark=MARK)],
                       cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=600)
        wait_for(lambda: model.answered >= threads, 600, "the threads did not all answer")
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
    steps = len(model.arrivals)
    length = model.tool_steps + 1
    assert steps == threads * length, f"{steps} requests for {threads} threads of {length} steps"
    return (steps - 1) / (model.arrivals[-1] - model.arrivals[0])


def baseline_requests_per_second(model: ThreadsModel, folder: Path) -> float:
    recorded = folder / "requests.jsonl"
    recorded.write_text("\n".join(body.decode() for body in model.bodies) + "\n")
    done = subprocess.run([sys.executable, "-c", BASELINE_CLIENT, str(recorded), model.url], check=True,
                          capture_output=True, text=True, timeout=600)
    model.reset()
    return float(done.stdout.strip().splitlines()[-1])


def environment(model: FakeModel, folder: Path, database_url: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "Q_SYNC", "Q_WORKERS")}
    env.update({"DJANGO_SETTINGS_MODULE": "roadstar.settings.development", "SQLITE_PATH": str(folder / "db.sqlite3"),
                "CHANNELS_SQLITE_PATH": str(folder / "channels.sqlite3"), "OPENAI_BASE_URL": model.url,
                "OPENAI_API_KEY": "bench", "DEBUG": "0", "PYTHONWARNINGS": "ignore", "BENCH_FOLDER": str(folder)})
    if database_url:
        env["DATABASE_URL"] = database_url
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
                   capture_output=True, text=True, timeout=600)
    return env


def spread(samples: list[float]) -> str:
    return f"{statistics.median(samples):.1f} ({min(samples):.1f}–{max(samples):.1f})"


def run(out, *, postgres: bool = False) -> None:
    model = ThreadsModel()
    folder = Path(tempfile.mkdtemp(prefix="roadstar-throughput-"))
    try:
        prefix = os.environ.get("BENCH_DATABASE_PREFIX", "roadstar_throughput")
        with fresh_postgres(prefix) if postgres else contextlib.nullcontext() as database_url:
            env = environment(model, folder, database_url)
            # Four agents hold the threads, so the run queue's limits (3 threads an agent, 8 a workspace) leave four
            # workers busy. Interleaved: Roadstar, then the server alone on the requests Roadstar just sent.
            plans = [(1, 4), (2, 8), (4, 8)] if postgres else [(1, 4)]
            rows = []
            for length in LENGTHS:
                model.tool_steps = length - 1
                for workers, threads in plans:
                    ours, alone = [], []
                    for i in range(REPEAT):
                        ours.append(roadstar_steps_per_second(model, env, workers=workers, threads=threads, agents=4,
                                                              label=f"s{length}-w{workers}-{i}"))
                        alone.append(baseline_requests_per_second(model, folder))
                    rows.append((length, workers, threads, ours, alone))
    finally:
        model.stop()
    out(f"## Throughput ({'PostgreSQL' if postgres else 'SQLite'}; threads of contacts.find steps and an answer; "
        f"steps a second, median (min–max) of {REPEAT})\n")
    out("| model steps a thread | worker processes | threads | Roadstar | the fake model server alone, one client "
        "| Roadstar / server |")
    out("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for length, workers, threads, ours, alone in rows:
        ratio = statistics.median(ours) / statistics.median(alone)
        out(f"| {length} | {workers} | {threads} | {spread(ours)} | {spread(alone)} | {ratio:.2f} |")
    out("")


if __name__ == "__main__":
    if "--postgres" in sys.argv and not postgres_available():
        raise SystemExit(1)
    run(print, postgres="--postgres" in sys.argv)
