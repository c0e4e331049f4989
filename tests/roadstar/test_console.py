"""The console `make run` is read in: warnings and errors only, a refused request in one line, and Ctrl-C ends it
without make calling it an error."""

from __future__ import annotations

import io
import logging
import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils.log import log_response

from core.log_filters import RefusalsInOneLine

ROOT = Path(settings.BASE_DIR)


def console_output(status: int, error: Exception) -> str:
    """What the console handler the settings configure prints for a response Django logs with its exception."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RefusalsInOneLine())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        try:
            raise error
        except (PermissionDenied, RuntimeError) as raised:
            log_response("Refused: %s", "/companies/7/", response=HttpResponse(status=status),
                         request=RequestFactory().get("/companies/7/"), exception=raised)
    finally:
        logger.removeHandler(handler)
    return out.getvalue()


def test_a_403_is_one_line_without_its_traceback():
    assert console_output(403, PermissionDenied("not yours")).splitlines() == ["Refused: /companies/7/"]


def test_a_500_keeps_its_traceback():
    text = console_output(500, RuntimeError("broken"))
    assert "Traceback" in text and "RuntimeError: broken" in text


def test_the_settings_log_warnings_only_and_filter_the_console():
    assert settings.LOGGING["root"]["level"] == os.environ.get("LOG_LEVEL", "WARNING").upper()
    assert settings.LOGGING["handlers"]["console"]["filters"] == ["refusals_in_one_line"]
    assert settings.Q_CLUSTER["log_level"] == settings.LOGGING["root"]["level"]  # no line per task
    assert "daphne -v 0 " in (ROOT / "Procfile").read_text()  # no access log line per request


@pytest.mark.parametrize("code,ends", [(130, 0), (143, 0), (1, 2)])
def test_ctrl_c_ends_make_run_cleanly_and_a_real_failure_still_fails(tmp_path, code, ends):
    """`make run` with a stand-in venv: its python does nothing, its honcho exits as honcho does on Ctrl-C (130)
    or TERM (143), or with a failure."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#!/bin/sh\nexit 0\n")
    (venv / "bin" / "honcho").write_text(f"#!/bin/sh\necho honcho ran\nexit {code}\n")
    for name in ("python", "honcho"):
        (venv / "bin" / name).chmod(0o755)
    (venv / ".python").touch()
    (venv / ".installed").touch()
    (tmp_path / "workspace-venv").mkdir()
    (tmp_path / "workspace-venv" / ".installed").touch()  # the sandbox's venv as made: nothing is installed
    done = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "run", f"VENV={venv}",
                           f"WORKSPACE_VENV={tmp_path / 'workspace-venv'}"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"})
    text = done.stdout + done.stderr
    assert "honcho ran" in text, text
    assert done.returncode == ends, text
    assert ("Error 130" in text, "Error 143" in text) == (False, False)
    if ends == 0:
        assert "Roadstar stopped." in text
