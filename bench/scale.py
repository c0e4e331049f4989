"""The scale-out run: PostgreSQL, the Redis channel layer, two web processes, two worker clusters (four worker
processes), 20 workspaces whose owners each send 10 chat messages 0.5–2 s apart over the API, a fake model.

Every message makes the chat start a thread that calls `contacts.find` three times and answers. Each run checks
that every message was answered exactly once (one thread, one passed chat Work, three tool calls, one answer back
in the chat) and counts errors in the processes' logs; it reports the latency from the owner's message to its
answer (median, p95), messages a second (from the first message to the last answer), and each process's memory.
The third run kills one worker cluster with SIGKILL while turns are in flight: the other cluster's lease watch
hands the dead one's conversations on, and the run reports how long after the kill they were answered.

    python bench/scale.py              # three runs (the last with the kill); figures into bench/PERFORMANCE.md
    python bench/scale.py --runs 1     # one run, no kill, nothing written

Needs PostgreSQL on 127.0.0.1:5432 and a redis-server binary (scripts/ensure-redis); says so and stops without.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import POSTGRES_ADMIN, FakeModel, postgres_available  # noqa: E402
from core.inputs import as_uuid  # noqa: E402

WORKSPACES = 20
MESSAGES = 10
GAP = (0.5, 2.0)  # seconds between one owner's messages
FINDS = 3  # contacts.find calls a thread makes before it answers
LEASE = 10  # seconds: ROADSTAR_TURN_LEASE_SECONDS for the run (the default is 15)
SETTLE = 240  # seconds after the last message for every answer: a run that takes longer is reported as such
KILL_AFTER = 8  # seconds into the sending, in the kill run
MARKER_START, MARKER_END = "<!-- scale:start -->", "<!-- scale:end -->"


class StaffModel(FakeModel):
    """A chat starts a thread for each owner message since its last step; a thread calls contacts.find FINDS times
    and answers "Done: <its task>"."""

    def reply(self, request: dict) -> tuple[dict, str]:
        tools = {t["function"]["name"] for t in request.get("tools", [])}
        messages = request["messages"]
        if "start_thread" in tools:
            asked = []
            for message in reversed(messages):
                if message["role"] == "assistant":
                    break
                content = message.get("content") or ""
                if message["role"] == "user" and "Sam: " in content:
                    asked.append(content.split("Sam: ", 1)[1])
            if not asked:
                return {"role": "assistant", "content": "Sent to threads."}, "stop"
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function", "function": {
                    "name": "start_thread", "arguments": json.dumps({"title": words[:80], "task": words})}}
                for words in reversed(asked)
            ]}, "tool_calls"
        if "use_tool" in tools:
            if sum(1 for m in messages if m["role"] == "tool") < FINDS:
                return {"role": "assistant", "content": None, "tool_calls": [{
                    "id": f"call_{uuid.uuid4().hex[:12]}", "type": "function", "function": {
                        "name": "use_tool", "arguments": json.dumps(
                            {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}})}}]}, "tool_calls"
            task = re.search(r"(scale \d+-\d+)", json.dumps(messages))
            return {"role": "assistant", "content": f"Done: {task.group(1) if task else 'it'}"}, "stop"
        return {"role": "assistant", "content": "Noted."}, "stop"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"scale bench: {what} never listened on {port}")


def group_rss_mib(pgid: int) -> list[float]:
    """The resident memory of each live process in a process group, in MiB."""
    sizes = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:  # (state, ppid, pgrp, …)
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        if found:
            sizes.append(int(found.group(1)) / 1024)
    return sizes


class Stack:
    """The processes of one run, each in a process group of its own, logging to the run's folder."""

    def __init__(self, env: dict, folder: Path):
        self.env, self.folder = env, folder
        self.web: list[tuple[subprocess.Popen, int]] = []
        self.workers: list[subprocess.Popen] = []

    def start(self) -> None:
        for i in range(2):
            port = free_port()
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "roadstar.asgi:application"],
                cwd=ROOT, env=self.env, stdout=open(self.folder / f"web{i}.log", "w"), stderr=subprocess.STDOUT,
                start_new_session=True)
            self.web.append((process, port))
        for i in range(2):
            self.workers.append(subprocess.Popen(
                [sys.executable, "manage.py", "worker"], cwd=ROOT, env={**self.env, "Q_WORKERS": "2"},
                stdout=open(self.folder / f"worker{i}.log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
        for _, port in self.web:
            wait_listening(port, 120, "a web process")

    def memory(self) -> dict:
        return {
            "web": [round(sum(group_rss_mib(p.pid)), 1) for p, _ in self.web if p.poll() is None],
            # The cluster's own processes (main, sentinel, pusher, monitor) and its two workers.
            "worker_cluster": [round(sum(group_rss_mib(p.pid)), 1) for p in self.workers if p.poll() is None],
            "worker_process": sorted(round(m, 1) for p in self.workers if p.poll() is None
                                     for m in group_rss_mib(p.pid)),
        }

    def stop(self) -> None:
        for process in [p for p, _ in self.web] + self.workers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in [p for p, _ in self.web] + self.workers:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def log_errors(self) -> int:
        errors = 0
        for log in self.folder.glob("*.log"):
            text = log.read_text(errors="replace")
            errors += text.count("Traceback") + len(re.findall(r"\bERROR\b", text))
        return errors


def send_all(stack: Stack, owners: list[tuple[str, str]], rng: random.Random) -> list[str]:
    """Each owner's 10 messages, 0.5–2 s apart, over the API of one web process or the other. Returns failures."""
    failures: list[str] = []

    def owner(index: int, token: str, agent_id: str) -> None:
        port = stack.web[index % 2][1]
        gaps = [rng.uniform(*GAP) for _ in range(MESSAGES)]
        for j in range(MESSAGES):
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/agents/{agent_id}/chat/", method="POST",
                data=json.dumps({"text": f"Please look up Dana, scale {index}-{j}"}).encode(),
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    if response.status != 201:
                        failures.append(f"{index}-{j}: {response.status}")
            except Exception as error:  # noqa: BLE001  (counted and reported)
                failures.append(f"{index}-{j}: {error}")
            time.sleep(gaps[j])

    threads = [threading.Thread(target=owner, args=(i, token, agent_id)) for i, (token, agent_id) in enumerate(owners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def seed(run: int) -> list[tuple[str, str]]:
    from django.contrib.auth import get_user_model

    from agents.models import Agent
    from api.tokens import api_token_make
    from core.models import Organization

    owners = []
    for i in range(WORKSPACES):
        user = get_user_model().objects.create_user(username=f"scale{run}-{i}", password="bench-pass")
        org = Organization.objects.create(name=f"Scale {run}-{i}", owner=user, owner_name="Sam Rivera",
                                          check_enabled=False)
        Agent.objects.create(organization=org, name="Roadstar", is_roadstar=True)
        agent = Agent.objects.create(organization=org, name="Client desk")
        owners.append((api_token_make(user=user), str(agent.id)))
    return owners


def settled(run: int) -> bool:
    from agents.models import Conversation, Work

    orgs = {"organization__name__startswith": f"Scale {run}-"}
    answered = Work.objects.filter(conversation__kind="thread", state="answered", **orgs).count()
    busy = Conversation.objects.filter(state__in=["queued", "running"], **orgs).exists()
    return answered >= WORKSPACES * MESSAGES and not busy


def reclaimed(folder: Path) -> set[str]:
    """The conversations the survivors' logs say were claimed again after their lease ran out."""
    ids: set[str] = set()
    for log in folder.glob("worker*.log"):
        for line in re.findall(r"claimed again: (.*)", log.read_text(errors="replace")):
            ids.update(part.strip() for part in line.split(","))
    return ids


def measure(run: int, started: float, kill_at: float | None,
            killed_ids: set[str] | frozenset[str] = frozenset()) -> dict:
    from agents.models import Conversation, Message, Run, ToolCall, Work

    orgs = {"organization__name__startswith": f"Scale {run}-"}
    owner_messages = list(Message.objects.filter(conversation__kind="chat", role="owner",
                                                 conversation__organization__name__startswith=f"Scale {run}-"))
    threads = {c.title: c for c in Conversation.objects.filter(kind="thread", **orgs)}
    thread_work = {w.conversation_id: w for w in Work.objects.filter(conversation__kind="thread", **orgs)}
    chat_work = {w.task: w for w in Work.objects.filter(conversation__kind="chat", **orgs)}
    answers: dict[str, int] = {}
    for work_id in Message.objects.filter(role="answer", conversation__kind="chat",
                                          conversation__organization__name__startswith=f"Scale {run}-"
                                          ).values_list("data__work_id", flat=True):
        answers[work_id] = answers.get(work_id, 0) + 1
    calls: dict = {}
    for conversation_id in ToolCall.objects.filter(conversation__kind="thread",
                                                   conversation__organization__name__startswith=f"Scale {run}-"
                                                   ).values_list("conversation_id", flat=True):
        calls[conversation_id] = calls.get(conversation_id, 0) + 1
    interrupted = set(Run.objects.filter(outcome="interrupted", **orgs).values_list("conversation_id", flat=True))
    killed = interrupted | {as_uuid(i) for i in killed_ids}
    exactly_once, latencies, recovered, killed_latencies, last = 0, [], [], [], 0.0
    for message in owner_messages:
        thread = threads.get(message.text[:80])
        work = thread_work.get(thread.id) if thread else None
        chat = chat_work.get(message.text)
        if (thread is None or work is None or work.state != "answered" or chat is None or chat.state != "passed"
                or answers.get(str(work.id)) != 1 or calls.get(thread.id) != FINDS):
            continue
        exactly_once += 1
        latency = (work.answered_at - message.created_at).total_seconds()
        latencies.append(latency)
        last = max(last, work.answered_at.timestamp())
        if kill_at is not None and (thread.id in killed or message.conversation_id in killed):
            killed_latencies.append(latency)
            if message.created_at.timestamp() < kill_at:  # in hand when the cluster died
                recovered.append(work.answered_at.timestamp() - kill_at)
    latencies.sort()
    return {
        "messages": len(owner_messages), "answered_exactly_once": exactly_once,
        "threads": len(threads), "interrupted_runs": len(interrupted),
        "latency_median_s": round(statistics.median(latencies), 2) if latencies else None,
        "latency_p95_s": round(latencies[int(0.95 * (len(latencies) - 1))], 2) if latencies else None,
        "messages_per_s": round(exactly_once / (last - started), 2) if last > started else None,
        "killed_answered_within_s": round(max(recovered), 1) if recovered else None,
        "killed_messages": len(recovered),
        "killed_conversations": len(killed),
        "killed_latency_max_s": round(max(killed_latencies), 1) if killed_latencies else None,
    }


def one_run(run: int, env: dict, folder: Path, *, kill: bool) -> dict:
    import django.db

    owners = seed(run)
    django.db.connections.close_all()
    stack = Stack(env, folder / f"run{run}")
    (folder / f"run{run}").mkdir()
    stack.start()
    time.sleep(3)  # the clusters fork their workers
    kill_at: list[float] = []
    try:
        def killer() -> None:
            time.sleep(KILL_AFTER)
            os.killpg(stack.workers[0].pid, signal.SIGKILL)  # the whole cluster: main, sentinel, workers
            kill_at.append(time.time())

        if kill:
            threading.Thread(target=killer, daemon=True).start()
        started = time.time()
        failures = send_all(stack, owners, random.Random(run))
        memory = stack.memory()
        deadline = time.monotonic() + SETTLE
        while time.monotonic() < deadline and not settled(run):
            time.sleep(0.5)
        result = measure(run, started, kill_at[0] if kill_at else None, reclaimed(folder / f"run{run}"))
        django.db.connections.close_all()
    finally:
        stack.stop()
    return {"run": run, "kill": kill, **result, "send_failures": len(failures), "log_errors": stack.log_errors(),
            "memory_mib": memory}


def table(results: list[dict]) -> str:
    rows = ["| run | answered exactly once | latency median / p95 | messages a second | killed cluster's messages "
            "answered within | log errors | memory: web processes; worker processes (MiB) |",
            "|---|---|---|---|---|---|---|"]
    for r in results:
        memory = r["memory_mib"]
        killed = (f"{r['killed_answered_within_s']} s after the kill ({r['killed_messages']} messages sent before it, "
                  f"{r['killed_conversations']} conversations taken over; their slowest message "
                  f"{r['killed_latency_max_s']} s)" if r["kill"] else "–")
        rows.append(
            f"| {r['run']}{' (kill -9 of one cluster)' if r['kill'] else ''} | {r['answered_exactly_once']} of "
            f"{WORKSPACES * MESSAGES} | {r['latency_median_s']} s / {r['latency_p95_s']} s | {r['messages_per_s']} | "
            f"{killed} | {r['log_errors']} | {', '.join(map(str, memory['web']))}; "
            f"{', '.join(map(str, memory['worker_process']))} |")
    return "\n".join(rows)


def write_performance(results: list[dict]) -> None:
    path = ROOT / "bench" / "PERFORMANCE.md"
    text = path.read_text()
    section = (f"{MARKER_START}\n{table(results)}\n\n(`python bench/scale.py`, {time.strftime('%Y-%m-%d')}: "
               f"PostgreSQL, Redis, 2 daphne, 2 clusters of 2 workers, lease {LEASE} s; the kill is of the first "
               f"cluster's whole process group {KILL_AFTER} s into the sending.)\n{MARKER_END}")
    if MARKER_START in text:
        text = re.sub(re.escape(MARKER_START) + ".*?" + re.escape(MARKER_END), lambda _: section, text, flags=re.S)
    else:
        heading = "## Scale-out: every message answered under load and after kill -9 (`bench/scale.py`)"
        text += f"\n{heading}\n\n{section}\n"
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    redis = shutil.which("redis-server")
    if redis is None or not postgres_available():
        print("scale bench: left out (it needs PostgreSQL at 127.0.0.1:5432 and redis-server: scripts/ensure-redis)")
        return
    import psycopg

    folder = Path(tempfile.mkdtemp(prefix="roadstar-scale-"))
    name = f"roadstar_scale_{uuid.uuid4().hex[:8]}"
    redis_port = free_port()
    model = StaffModel()
    redis_server = subprocess.Popen([redis, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", str(folder)], stdout=subprocess.DEVNULL)
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    database_url = f"postgres://postgres@127.0.0.1:5432/{name}"
    env = {k: v for k, v in os.environ.items() if k not in ("Q_SYNC", "Q_WORKERS", "SQLITE_PATH")}
    env.update({"DJANGO_SETTINGS_MODULE": "roadstar.settings.development", "DATABASE_URL": database_url,
                "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "OPENAI_BASE_URL": model.url,
                "OPENAI_API_KEY": "bench", "DEBUG": "0", "SECRET_KEY": "scale-bench-key",
                "ROADSTAR_TURN_LEASE_SECONDS": str(LEASE), "PYTHONWARNINGS": "ignore"})
    try:
        migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=900)
        if migrated.returncode:
            raise SystemExit(f"scale bench: migrate failed:\n{migrated.stderr[-3000:]}")
        os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "DEBUG",
                                               "SECRET_KEY")})
        import django

        django.setup()
        wait_listening(redis_port, 20, "redis-server")
        results = []
        for run in range(1, args.runs + 1):
            kill = args.runs >= 3 and run == args.runs
            results.append(one_run(run, env, folder, kill=kill))
            print(json.dumps(results[-1]))
        print(table(results))
        if args.runs >= 3:
            write_performance(results)
    finally:
        from django.apps import apps

        if apps.ready:  # (a failed migrate stops the run before Django is set up here)
            import django.db

            django.db.connections.close_all()
        redis_server.terminate()
        model.stop()
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"(logs in {folder})")


if __name__ == "__main__":
    main()
