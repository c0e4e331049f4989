"""The sandbox starts wherever the project is, root or not; where it can't, the owner and the agent are told why in
words they can act on, once, and the workspace page shows it."""

import os
import shutil

import pytest
from django.urls import reverse

from tests.workspace.conftest import needs_sandbox
from workspace import sandbox

pytestmark = [needs_sandbox, pytest.mark.django_db]


def test_runs_work_from_a_project_under_a_private_folder(tmp_path, settings, monkeypatch, bash):
    # As root, runs are made as the workspace's own user, who can't pass through a 0700 folder of root's (a clone in
    # /root, a mkdtemp folder): bwrap looked up what it was given as that user and answered "Can't find source
    # path /proc/self/fd/23: Permission denied".
    if os.geteuid() != 0:
        pytest.skip("only root makes runs as another user; Roadstar's own user passes through its own folders")
    private = tmp_path / "private"
    private.mkdir()
    os.chmod(private, 0o700)
    clients = private / "project" / "workspace" / "clients"
    shutil.copytree(sandbox.CLIENTS, clients)
    monkeypatch.setattr(sandbox, "CLIENTS", clients)
    settings.WORKSPACE_ROOT = str(private / "project" / "var" / "workspace")
    result = bash("python -c \"import roadstar; print('client', roadstar.__name__)\"; echo hi > note.txt; cat note.txt")
    assert result["exitCode"] == 0, result
    assert result["output"].split() == ["client", "roadstar", "hi"]
    assert (private / "project" / "var" / "workspace").is_dir()


@pytest.fixture
def owner(client, org):
    client.force_login(org.owner)
    return client


def test_a_sandbox_that_cant_start_says_why_once_and_the_page_shows_it(bash, monkeypatch, owner):
    started = []
    real = sandbox._supervise

    def counted(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sandbox, "_supervise", counted)
    monkeypatch.setattr(sandbox, "_usr_links", lambda: ["--no-such-option"])  # bwrap refuses to start
    first = bash("echo hello")
    assert first["error"] == "unsupported"
    assert "The workspace can't run on this Roadstar's machine: the sandbox didn't start" in first["message"]
    assert "nothing was run" in first["message"] and "bwrap" in first["message"]
    assert "hello" not in first["message"]
    second = bash("echo hello")
    assert second == first and started == [1]  # said once: the next run isn't tried again
    page = owner.get(reverse("pages:workspace")).content.decode()
    assert "The workspace can't run on this machine" in page and "the sandbox didn&#x27;t start" in page
    # A while later it is looked at again (the cause may be gone): here it is still there, and said again.
    monkeypatch.setattr(sandbox, "_failed_at", sandbox._failed_at - sandbox.RETRY_AFTER_SECONDS - 1)
    again = bash("echo hello")
    assert again["error"] == "unsupported" and "Unknown option --no-such-option" in again["message"]


def test_a_moments_shortage_fails_this_run_only(bash, monkeypatch):
    # The last run's processes still ending (RLIMIT_NPROC) is no reason to turn the workspace off for everyone.
    real = sandbox._supervise

    def short(*args, **kwargs):
        raise sandbox._NotStarted("bwrap: Creating new namespace failed: Resource temporarily unavailable",
                                  passing=True)

    monkeypatch.setattr(sandbox, "_supervise", short)
    result = bash("echo hello")
    assert result["error"] == "unavailable" and "Try again in a moment" in result["message"]
    assert sandbox.availability() is None
    monkeypatch.setattr(sandbox, "_supervise", real)
    assert bash("echo hello")["output"] == "hello\n"
