"""Pickup: how long from the owner's chat message being POSTed to the model being asked, over the real wire.

daphne serves Roadstar on a free loopback port, `manage.py worker` runs django-q2's cluster, and an
OpenAI-compatible fake model (in this process) notes when each request arrives and answers at once. The owner
signs in over HTTP and sends chat messages one at a time; the figure is the time from the POST to the model
request that carries the message's words: the web's write, the queue, the worker's pickup and the turn's start.
One web server and database serve two workers in turn, started afresh for each repetition: the project's (the
broker woken on enqueue, roadstar/broker.py) and django-q2's ORM broker polled every 0.05 s (bench/poll_settings.py),
interleaved, so their ratio comes from one run under one load.

    python bench/pickup.py              # the embedded default: SQLite in a temporary folder
    python bench/pickup.py --postgres   # a fresh PostgreSQL database (127.0.0.1:5432), dropped after
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import FakeModel, fresh_postgres, wait_for  # noqa: E402

REPS = int(os.environ.get("BENCH_PICKUP_REPS", "5"))
MESSAGES = 10
# The worker's settings per broker: the project's (the waking broker) and django-q2's ORM broker polled at 0.05 s.
BROKERS = {"wake-up": "roadstar.settings.development", "poll 0.05 s": "bench.poll_settings"}
PASSWORD = "bench-pickup-pass"


class PickupModel(FakeModel):
    """Notes when the first request carrying each message's mark arrived."""

    def __init__(self):
        super().__init__()
        self.arrivals: dict[str, float] = {}

    def seen(self, raw: bytes, request: dict, arrived: float, finish: str) -> None:
        for mark in re.findall(r"pickup-[0-9a-f]{12}", raw.decode()):
            with self.lock:
                self.arrivals.setdefault(mark, arrived)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sign_in(client: httpx.Client) -> str:
    client.get("/login/")
    token = client.cookies["csrftoken"]
    reply = client.post("/login/", data={"username": "sam", "password": PASSWORD, "csrfmiddlewaretoken": token})
    if reply.status_code not in (200, 302) or "sessionid" not in client.cookies:
        raise SystemExit(f"pickup bench: sign-in refused ({reply.status_code})")
    return client.cookies["csrftoken"]


def start_worker(env: dict, log: Path, settings_module: str) -> subprocess.Popen:
    """A worker with the given settings, once its pusher and its worker process are up (LOG_LEVEL=INFO lines)."""
    handle = open(log, "w")
    process = subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=ROOT,
                               env={**env, "DJANGO_SETTINGS_MODULE": settings_module, "LOG_LEVEL": "INFO"},
                               stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    wait_for(lambda: all(line in log.read_text() for line in ("pushing tasks at", "ready for work at")), 120,
             f"the worker ({settings_module}) did not start")
    time.sleep(0.5)  # the worker's first look at the queue is behind it
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def measure(database_url: str | None) -> dict[str, dict]:
    """Per broker: each message's latency (ms), grouped per worker start, and where the time went."""
    folder = Path(tempfile.mkdtemp(prefix="roadstar-pickup-"))
    model = PickupModel()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "Q_SYNC", "Q_POLL")}
    env.update({"DJANGO_SETTINGS_MODULE": "roadstar.settings.development", "SQLITE_PATH": str(folder / "db.sqlite3"),
                "CHANNELS_SQLITE_PATH": str(folder / "channels.sqlite3"), "DEMO_PASSWORD": PASSWORD,
                "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "bench", "DEBUG": "0",
                "PYTHONWARNINGS": "ignore"})
    if database_url:
        env["DATABASE_URL"] = database_url
    run = lambda *args: subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,  # noqa: E731
                                       capture_output=True, text=True, timeout=600)
    run("migrate", "--noinput")
    run("seed_demo")
    desk = run("shell", "-c", "from agents.models import Agent; "
                              "print(Agent.objects.get(name='Client desk').id)").stdout.strip().splitlines()[-1]
    # The web enqueues with the project's broker throughout: with the polled worker its wake-up finds no listener.
    web_log = open(folder / "daphne.log", "w")
    web = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                            "roadstar.asgi:application"], cwd=ROOT, env=env, stdout=web_log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    results = {name: {"first": [], "reps": [], "marks": {}} for name in BROKERS}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Host": "localhost"}, timeout=30) as client:
            def up():
                try:
                    return client.get("/login/").status_code == 200
                except httpx.TransportError:
                    return False

            wait_for(up, 60, "daphne did not answer")
            csrf = sign_in(client)
            for rep in range(REPS):
                # Interleaved, and the order swapped each repetition, so a change in the machine's load falls on
                # both alike.
                order = list(BROKERS) if rep % 2 == 0 else list(reversed(BROKERS))
                for name in order:
                    worker = start_worker(env, folder / f"worker-{name}-{rep}.log", BROKERS[name])
                    try:
                        latencies = []
                        for _ in range(MESSAGES + 1):
                            mark = f"pickup-{uuid.uuid4().hex[:12]}"
                            sent = time.time()
                            reply = client.post(f"/chat/{desk}/",
                                                data={"text": f"Note {mark}", "csrfmiddlewaretoken": csrf},
                                                headers={"X-Requested-With": "fetch", "X-CSRFToken": csrf})
                            if reply.status_code != 204:
                                raise SystemExit(f"pickup bench: the chat POST answered {reply.status_code}")
                            arrived = wait_for(lambda: model.arrivals.get(mark), 60, "the model was not asked")  # noqa: B023
                            latencies.append((arrived - sent) * 1000)
                            results[name]["marks"][mark] = (sent, arrived, bool(latencies[1:]))
                            time.sleep(0.3)  # the turn finishes; the next message finds the worker idle
                        results[name]["first"].append(latencies[0])
                        results[name]["reps"].append(latencies[1:])
                    finally:
                        stop(worker)
    finally:
        stop(web)
        model.stop()
    # Where the time went: the web's write (POST to the owner's message saved), the queue (saved to the worker's
    # run starting), the turn's start (run started to the model asked).
    rows = json.loads(run("shell", "-c", (
        "import json; from agents.models import Message, Run; "
        "print(json.dumps({'messages': [(m.text, m.created_at.timestamp()) for m in "
        "Message.objects.filter(role='owner', text__startswith='Note pickup-')], "
        "'runs': sorted(r.started_at.timestamp() for r in Run.objects.filter(conversation__kind='chat'))}))"
    )).stdout.strip().splitlines()[-1])
    for result in results.values():
        result["parts"] = []
        for text, saved in rows["messages"]:
            mark = text.split()[-1]
            started = min((r for r in rows["runs"] if r >= saved), default=None)
            if mark in result["marks"] and started is not None:
                sent, arrived, warm = result["marks"][mark]
                if warm:
                    result["parts"].append(((saved - sent) * 1000, (started - saved) * 1000,
                                            (arrived - started) * 1000))
    return results


def run(out, *, postgres: bool = False) -> None:
    with fresh_postgres("roadstar_pickup") if postgres else contextlib.nullcontext() as database_url:
        results = measure(database_url)
    out(f"## Pickup over the wire ({'PostgreSQL' if postgres else 'SQLite'}; POST to the model's request; "
        f"{REPS} worker starts per broker, interleaved, {MESSAGES} messages each after the first)\n")
    out("| broker | median (min–max of the starts' medians) | p95 | first message after a start, median (max) "
        "| web saves | queue to the run | turn to the request |")
    out("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    medians = {}
    for name, result in results.items():
        per_rep = [statistics.median(rep) for rep in result["reps"]]
        every = sorted(x for rep in result["reps"] for x in rep)
        medians[name] = per_rep
        web, queue, start = (statistics.median(p[i] for p in result["parts"]) for i in range(3))
        out(f"| {name} | {statistics.median(every):.0f} ms ({min(per_rep):.0f}–{max(per_rep):.0f}) "
            f"| {every[int(len(every) * 0.95) - 1]:.0f} ms | {statistics.median(result['first']):.0f} ms "
            f"({max(result['first']):.0f}) | {web:.0f} ms | {queue:.0f} ms | {start:.0f} ms |")
    ratios = [wake / poll for wake, poll in zip(medians["wake-up"], medians["poll 0.05 s"], strict=True)]
    out(f"\nWake-up / poll, per repetition: median {statistics.median(ratios):.2f}x "
        f"({min(ratios):.2f}–{max(ratios):.2f}x). Target: a median under 50 ms.\n")


if __name__ == "__main__":
    run(print, postgres="--postgres" in sys.argv)
