"""The owner's yes over the real wire (issue 24): daphne serving Roadstar, the django-q2 worker as its own process,
the real OpenAI client talking to a fake OpenAI-compatible model on loopback, and the owner acting over HTTP as a
browser would (signed in, with the CSRF token). The stack is the embedded default: a fresh SQLite database in a
temporary folder; the test process reads it through `wire_act.py state`, never through the ORM.

The fake model plays the spec's stories (tests/use_cases/spec_staff.py): each conversation tries its action on new
input, asks in its reply when the check holds it back, and reports when it went; a chat either passes the owner's
yes to its thread with message_thread or never passes anything on.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.use_cases.spec_staff import SpecStaff

ROOT = Path(__file__).resolve().parents[2]
ACT = Path(__file__).resolve().parent / "wire_act.py"

REMINDER = {"to": ["accounts@harbormarine.test"], "subject": "Invoice 1044 from Fernhill Studio",
            "text": "Hi,\n\nA friendly reminder that invoice 1044 for $6,400, the Harbor Marine signage, was due on "
                    "October 20. You can pay it here: https://app.qbo.intuit.com/app/invoice?txnId=1044\n\nThanks,\n"
                    "Sam"}
# As the spec has it: the thread asks in its reply, saying what it would send to whom (here, by who they are).
REMINDER_ASK = ("Invoice 1044 to Harbor Marine is $6,400 and 21 days late, over your $5,000 line. Shall I send their "
                "accounts team a friendly reminder?")
QUOTE = {"to": ["dana@juniperdental.test"], "subject": "Re: Rebrand for our second clinic",
         "text": "Hi Dana,\n\nFor a new logo with a one-page brand guide, and signage for both clinics, the price is "
                 "$8,400, ready five weeks after you sign.\n\nSam"}
QUOTE_ASK = "Send Dana the Juniper Dental quote for $8,400? Logo, brand guide and signage, ready in five weeks."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stack:
    """Roadstar as `make run` runs it, on a fake model: web, worker, and the owner's browser session."""

    def __init__(self, folder: Path, model: SpecStaff):
        self.folder = folder
        self.url = f"http://127.0.0.1:{_free_port()}"
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("DATABASE_URL", "REDIS_URL", "Q_SYNC", "CHECK_JUDGE_MODEL")}
        self.env.update({
            "DJANGO_SETTINGS_MODULE": "roadstar.settings.development",
            "SQLITE_PATH": str(folder / "roadstar.sqlite3"),
            "CHANNELS_SQLITE_PATH": str(folder / "channels.sqlite3"),
            "ROADSTAR_MAIL_ROOT": str(folder / "mail"),
            "DEMO_PASSWORD": "fernhill-wire",
            "OPENAI_BASE_URL": model.base_url,
            "OPENAI_API_KEY": "test",
            "PYTHONUNBUFFERED": "1",
            "PYTHONWARNINGS": "ignore",
        })
        self.processes: list[subprocess.Popen] = []
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.seed: dict = {}

    def act(self, command: str) -> dict:
        done = subprocess.run([sys.executable, str(ACT), command], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"wire_act.py {command} failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def start(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "w")
        process = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.processes.append(process)
        return process

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is not None:
                continue
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)

    # --- the owner's browser ---------------------------------------------------------------------------------

    def get(self, path: str) -> str:
        with self.opener.open(self.url + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, fields: dict) -> str:
        token = next((c.value for c in self.cookies if c.name == "csrftoken"), None)
        if token is None:
            self.get("/login/")
            token = next(c.value for c in self.cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(self.url + path, data=body, headers={"Referer": self.url + path})
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode()

    def sign_in(self) -> None:
        self.post("/login/", {"username": self.seed["username"], "password": self.seed["password"]})
        assert "Waiting for you" in self.get("/"), "not signed in"

    def say(self, agent: str, text: str) -> None:
        self.post(f"/chat/{self.seed['agents'][agent]}/", {"text": text})

    def answer(self, ask_id: str, button: str) -> str:
        return self.post(f"/asks/{ask_id}/answer", {button: "1", "answer": "", "next": "/"})

    def wait_for(self, what, *, timeout: float = 90) -> dict:
        """The stack's state once `what(state)` holds and every conversation is idle again."""
        deadline = time.monotonic() + timeout
        state: dict = {}
        while time.monotonic() < deadline:
            state = self.act("state")
            if what(state) and state["busy"] == 0:
                return state
            time.sleep(0.5)
        raise AssertionError(f"timed out; last state: {json.dumps(state)[:3000]}\nworker:\n{self.log('worker')}")

    def settled(self, *, quiet: float = 4) -> dict:
        """The state after nothing moved for `quiet` seconds: the worker has nothing left that this could start."""
        last = self.act("state")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(quiet)
            now = self.act("state")
            if now == last and now["busy"] == 0:
                return now
            last = now
        raise AssertionError(f"never settled: {json.dumps(last)[:3000]}")


@pytest.fixture(scope="module")
def stack():
    folder = Path(tempfile.mkdtemp(prefix="roadstar-wire-"))
    with SpecStaff() as model:
        running = Stack(folder, model)
        running.model = model
        try:
            migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT,
                                     env=running.env, capture_output=True, text=True, timeout=600)
            assert migrate.returncode == 0, migrate.stderr[-4000:]
            running.seed = running.act("seed")
            port = running.url.rsplit(":", 1)[1]
            server = running.start("daphne", [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", port,
                                              "roadstar.asgi:application"])
            running.start("worker", [sys.executable, "manage.py", "worker"])
            deadline = time.monotonic() + 60
            while True:
                try:
                    running.get("/login/")
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise AssertionError(f"daphne didn't answer:\n{running.log('daphne')}") from None
                    time.sleep(0.3)
            running.sign_in()
            yield running
        finally:
            running.stop()
            shutil.rmtree(folder, ignore_errors=True)


def asks_in(state: dict, title: str, *, states=("waiting",)) -> list[dict]:
    ids = {cid for cid, t in state["threads"].items() if t == title}
    return [a for a in state["asks"] if a["conversation"] in ids and a["state"] in states]


def sends(state: dict, subject: str) -> list[dict]:
    return [h for h in state["held"] if h["subject"] == subject]


def test_the_overdue_reminder_over_5000_goes_once_after_yes_in_the_bookkeepers_chat(stack):
    """The routine's thread asks before a $6,400 reminder; Sam answers "Yes, send it" in the Bookkeeper's chat; the
    chat passes it on with message_thread; the thread's next mail.send goes on that yes, once."""
    stack.model.on_thread("Bookkeeper", "Overdue invoices", action=REMINDER, ask=REMINDER_ASK,
                       done="Sent the reminder about invoice 1044.")
    stack.model.on_chat("Bookkeeper", thread="Overdue invoices", passes_yes_on=True)
    stack.act("fire")
    state = stack.wait_for(lambda s: asks_in(s, "Overdue invoices"))
    assert sends(state, REMINDER["subject"]) == []
    stack.say("Bookkeeper", "Yes, send it")
    state = stack.wait_for(lambda s: sends(s, REMINDER["subject"]))
    state = stack.settled()
    assert [h["to"] for h in sends(state, REMINDER["subject"])] == [REMINDER["to"]]
    thread = next(cid for cid, t in state["threads"].items() if t == "Overdue invoices")
    assert [o for tool, o, c in state["decisions"] if tool == "mail.send" and c == thread] == ["ask", "go"]
    assert stack.model.passed_on["Bookkeeper"] == 1
    # Home shows the ask done: no Yes or No under it.
    home = stack.get("/")
    assert "Done: it went ahead" in home


def test_the_quote_goes_once_when_yes_in_the_chat_is_followed_by_a_stale_yes_on_home(stack):
    """Client desk's thread holds the quote under Sam's rule and asks; Sam says "Yes, send it" in the chat and the
    quote goes; then Sam presses Yes on the Home page loaded before: nothing goes a second time."""
    stack.model.on_thread("Client desk", "Juniper Dental", action=QUOTE, ask=QUOTE_ASK, done="Sent Dana the quote.")
    stack.model.on_chat("Client desk", thread="Juniper Dental", passes_yes_on=True)
    stack.say("Client desk", "Dana Whitfield asked about a rebrand for Juniper Dental: answer her with a quote from "
                             "the rate card. I see every quote before it goes out.")
    state = stack.wait_for(lambda s: asks_in(s, "Juniper Dental"))
    [stale] = asks_in(state, "Juniper Dental")
    stale_home = stack.get("/")
    assert f"/asks/{stale['id']}/answer" in stale_home  # the Yes Sam will press later, on this page
    stack.say("Client desk", "Yes, send it")
    state = stack.wait_for(lambda s: sends(s, QUOTE["subject"]))
    page = stack.answer(stale["id"], "yes")
    assert re.search(r"answered already|done already", page), page[:2000]
    state = stack.settled()
    assert len(sends(state, QUOTE["subject"])) == 1
    assert [a["used"] for a in asks_in(state, "Juniper Dental", states=("yes", "done"))] == [True]
    assert not asks_in(state, "Juniper Dental")


def test_yes_on_home_reaches_a_thread_whose_chat_never_passes_anything_on(stack):
    """Front desk's chat model never forwards anything: Home's Yes goes to the thread that asked all the same."""
    rosa_context = {"contactId": stack.seed["rosa"], "text": "Prefers invoices by post",
                    "why": "She said so on the phone."}
    stack.model.on_thread("Front desk", "Ortiz Bakery", action={"name": "contacts.context", "input": rosa_context},
                       ask="Set Rosa's Context to “Prefers invoices by post”? She said so on the phone.",
                       done="Rosa's Context now says she prefers invoices by post.", tool="contacts.context")
    stack.model.on_chat("Front desk", thread="Ortiz Bakery", passes_yes_on=False)
    stack.say("Front desk", "Keep Rosa Ortiz's record up to date.")
    state = stack.wait_for(lambda s: asks_in(s, "Ortiz Bakery"))
    [ask] = asks_in(state, "Ortiz Bakery")
    stack.answer(ask["id"], "yes")
    state = stack.wait_for(lambda s: s["rosa"] == "Prefers invoices by post")
    assert stack.model.passed_on.get("Front desk", 0) == 0
    thread = next(cid for cid, t in state["threads"].items() if t == "Ortiz Bakery")
    assert [o for tool, o, c in state["decisions"] if tool == "contacts.context" and c == thread] == ["ask", "go"]
    # The chat shows the answer that went to the thread.
    chat = stack.get(f"/chat/{stack.seed['agents']['Front desk']}/")
    assert "You answered the question from “Ortiz Bakery” on Home." in chat
