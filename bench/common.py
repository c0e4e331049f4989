"""What the benchmarks share: a fresh workspace, a fake OpenAI-compatible model server, a PostgreSQL database of
their own, and a wait."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def make_workspace(name: str):
    from django.contrib.auth import get_user_model

    from agents.models import Agent
    from core.models import Organization

    user = get_user_model().objects.create_user(username=name, password="bench-pass")
    org = Organization.objects.create(name=name, owner=user, owner_name="Sam Rivera", check_enabled=True)
    Agent.objects.create(organization=org, name="Roadstar", is_roadstar=True)
    agent = Agent.objects.create(organization=org, name="Client desk")
    return user, org, agent


class FakeModel:
    """An OpenAI-compatible chat completions server in this process, on a free loopback port, that answers at once.

    A bench subclasses it: `reply` gives the assistant's message and its finish reason for a request, `seen` notes
    what arrived (called before the answer is sent, with the time the body was read)."""

    def __init__(self):
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the openai client expects (and OpenAI's servers do)

            def setup(self):
                super().setup()
                # The headers and the body go out as two writes: without this, Nagle's algorithm holds the body
                # until the client's delayed ACK (about 40 ms a request on Linux).
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                arrived = time.time()
                request = json.loads(raw)
                message, finish = model.reply(request)
                model.seen(raw, request, arrived, finish)
                body = json.dumps({
                    "id": "chatcmpl-bench", "object": "chat.completion", "created": int(arrived), "model": "bench",
                    "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": 20, "total_tokens": len(raw) // 4},
                    "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, request: dict) -> tuple[dict, str]:
        return {"role": "assistant", "content": "Noted."}, "stop"

    def seen(self, raw: bytes, request: dict, arrived: float, finish: str) -> None:
        pass

    def stop(self) -> None:
        self.httpd.shutdown()


def wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.005)
    raise SystemExit(f"bench: {what} within {timeout:.0f} s")


def postgres_available() -> bool:
    try:
        import psycopg

        psycopg.connect(POSTGRES_ADMIN, connect_timeout=2).close()
        return True
    except Exception:  # noqa: BLE001  (no server here: the PostgreSQL figure is left out, and says so)
        print("(PostgreSQL benches left out: no server at 127.0.0.1:5432)")
        return False


@contextlib.contextmanager
def fresh_postgres(prefix: str):
    """A new PostgreSQL database for one bench run (its DATABASE_URL), dropped after."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgres://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
