"""Browser tests: Debian's Chromium, driven by Playwright's sync API, against Roadstar running as `make run` runs it.

The stack is the embedded default, for real: a fresh SQLite database and channel-layer file in a temporary
folder, `manage.py migrate`, daphne serving roadstar.asgi (HTTP and websockets) on a free loopback port, and the
django-q2 worker (`manage.py worker`) as a separate process with a scripted model (tests/browser/worker.py). What the
tests do from outside the browser, they do as another process would (tests/browser/act.py). The test process
itself never opens the database, so pytest-django's test database is not involved, and the stack is the same on
the SQLite and the PostgreSQL runs of the suite.

Playwright's sync API keeps an event loop running in the main thread while it is started, which Django takes for
an async context: so Playwright lives for one module at a time, and nothing here touches the ORM.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
# As root in a container Chromium needs --no-sandbox; the rest keep it off this machine's closed network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PASSWORD = "fernhill-browser"


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: runs in headless Chromium (Debian's, through Playwright) against a running stack"
    )
    # pytest-xdist registers it when it runs; a run without it (-p no:xdist) must not warn.
    config.addinivalue_line("markers", "xdist_group(name): run with the other tests of its group on one worker")


@dataclass
class Stack:
    url: str
    folder: Path
    env: dict
    seed: dict = field(default_factory=dict)
    processes: list = field(default_factory=list)

    def act(self, *args: str) -> dict:
        """Run tests/browser/act.py in its own process against the stack's database; its JSON answer."""
        done = subprocess.run([sys.executable, str(HERE / "act.py"), *args], cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"act.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(stack: Stack, name: str, args: list[str]) -> subprocess.Popen:
    log = open(stack.folder / f"{name}.log", "w")
    # Its own process group, so stopping it also stops what it forked (the worker's cluster processes).
    process = subprocess.Popen(args, cwd=ROOT, env=stack.env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    stack.processes.append(process)
    return process


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


def _wait_for_http(stack: Stack, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"daphne stopped at start:\n{stack.log('daphne')}")
        try:
            with urllib.request.urlopen(stack.url + "/login/", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"daphne did not answer within {timeout}s:\n{stack.log('daphne')}")


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM}: `make test` installs it "
                    "(scripts/ensure-chromium), which needs root and apt-get")
    return CHROMIUM


@pytest.fixture(scope="session")
def stack(chromium_path):
    folder = Path(tempfile.mkdtemp(prefix="roadstar-browser-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "Q_SYNC")}
    url = f"http://127.0.0.1:{_free_port()}"
    env.update({
        # Roadstar's own address: the issuer and the resource an app signing in through it asks for (issue 28).
        "ROADSTAR_URL": url,
        "DJANGO_SETTINGS_MODULE": "roadstar.settings.development",
        "SQLITE_PATH": str(folder / "roadstar.sqlite3"),
        "CHANNELS_SQLITE_PATH": str(folder / "channels.sqlite3"),
        "DEMO_PASSWORD": PASSWORD,
        "DEBUG": "1",  # static files from the app folders, as under `make run`
        "PYTHONUNBUFFERED": "1",
        "PYTHONWARNINGS": "ignore::UserWarning",
    })
    running = Stack(url=url, folder=folder, env=env)
    try:
        migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                                 capture_output=True, text=True, timeout=300)
        assert migrate.returncode == 0, migrate.stderr[-4000:]
        port = running.url.rsplit(":", 1)[1]
        server = _start(running, "daphne", [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", port,
                                            "roadstar.asgi:application"])
        _start(running, "worker", [sys.executable, str(HERE / "worker.py")])
        running.seed = running.act("seed")  # while the servers start
        _wait_for_http(running, server)
        yield running
    finally:
        for process in running.processes:
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium(chromium_path):
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS)
    except Exception as error:  # noqa: BLE001
        playwright.stop()
        pytest.skip(f"Chromium at {chromium_path} would not start under Playwright: {error}")
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def page(chromium, stack):
    context = chromium.new_context(base_url=stack.url, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def signed_in(page, stack):
    """The owner, signed in, on Home with its live socket open."""
    page.goto("/login/")
    page.fill("input[name=username]", stack.seed["username"])
    page.fill("input[name=password]", stack.seed["password"])
    page.click("button[type=submit]")
    page.wait_for_url(stack.url + "/")
    page.wait_for_selector("html[data-live-socket=open]")
    return page
