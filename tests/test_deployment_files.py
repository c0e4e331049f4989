"""The container image definition and the compose file say what the README's "More than one machine" says: one
image, the web and the worker from it, PostgreSQL and Redis beside them, the settings each process needs. Parsed
here; built where a container engine answers (skipped, saying so, where none does)."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def test_the_image_is_python_312_with_the_pinned_requirements_and_serves_daphne():
    instructions = dockerfile()
    assert instructions[0] == ("FROM", "python:3.12-slim-bookworm")
    runs = " ".join(arg for op, arg in instructions if op == "RUN")
    assert "pip install -r requirements.txt" in runs and "requirements-workspace.txt" in runs
    assert "bubblewrap" in runs  # the agents' sandboxed workspace needs it
    assert any(op == "USER" and arg != "root" for op, arg in instructions)
    [cmd] = [arg for op, arg in instructions if op == "CMD"]
    assert "exec daphne" in cmd and "roadstar.asgi:application" in cmd
    procfile = (ROOT / "Procfile").read_text()
    assert "roadstar.asgi:application" in procfile and "manage.py worker" in procfile


def test_compose_runs_web_and_worker_on_postgresql_and_redis(compose):
    services = compose["services"]
    assert {"web", "worker", "postgres", "redis", "migrate"} <= set(services)
    assert services["worker"]["command"] == ["python", "manage.py", "worker"]
    assert "8000:8000" in services["web"]["ports"]
    for name in ("web", "worker", "migrate"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"] == "redis://redis:6379/0"
        assert env["ROADSTAR_ENV"] == "production"
        for secret in ("SECRET_KEY", "ROADSTAR_TOKEN_KEY", "ALLOWED_HOSTS"):
            assert ":?" in env[secret], f"{name}: {secret} must be required, not defaulted"
        assert services[name]["build"] == "."
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["worker"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "migrate --noinput" in " ".join(services["migrate"]["command"])
    assert services["postgres"]["image"].startswith("postgres:") and "healthcheck" in services["postgres"]
    assert services["redis"]["image"].startswith("redis:") and "healthcheck" in services["redis"]


def engine() -> str | None:
    for name in ("docker", "podman"):
        binary = shutil.which(name)
        if binary and subprocess.run([binary, "info"], capture_output=True, timeout=30).returncode == 0:
            return binary
    return None


def test_the_image_builds_where_a_container_engine_answers():
    binary = engine()
    if binary is None:
        pytest.skip("no container engine answers here (docker or podman `info`): the image isn't built")
    built = subprocess.run([binary, "build", "-q", "-t", "roadstar:test", str(ROOT)], capture_output=True,
                           text=True, timeout=1800)
    assert built.returncode == 0, built.stderr[-3000:]
