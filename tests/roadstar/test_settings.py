"""The settings modules: which one runs where, what production refuses, and that every setting read is declared.

Production and development are loaded in a fresh process each (as manage.py loads them), with an environment of
the test's own: the suite's own process runs the test settings, chosen by pytest.ini.
"""

from __future__ import annotations

import ast
import os
import re
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.conf import global_settings
from django.conf import settings as django_settings

from roadstar import settings as roadstar_settings
from roadstar.settings import DEVELOPMENT_SECRET_KEY, SettingsRefused, base, module_for

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = secrets.token_urlsafe(50)
# What the environment of a process started by these tests keeps from the suite's: nothing Roadstar reads.
KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k in KEEP}
    environ.update({
        "SQLITE_PATH": str(tmp_path / "roadstar.sqlite3"),
        "CHANNELS_SQLITE_PATH": str(tmp_path / "channels.sqlite3"),
        "PYTHONWARNINGS": "ignore",
        **env,
    })
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=environ, capture_output=True, text=True,
                          timeout=120)


def production(**env: str) -> dict[str, str]:
    return {"ROADSTAR_ENV": "production", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "studio.example.com", **env}


# --- which module ---------------------------------------------------------------------------------------------


def test_the_suite_runs_the_test_settings_named_by_pytest_ini():
    ini = (ROOT / "pytest.ini").read_text()
    assert "DJANGO_SETTINGS_MODULE = roadstar.settings.test" in ini
    assert os.environ["DJANGO_SETTINGS_MODULE"] == "roadstar.settings.test" and django_settings.ROADSTAR_ENV == "test"


def test_no_settings_module_guesses_from_what_is_imported():
    for path in (ROOT / "roadstar" / "settings").glob("*.py"):
        text = path.read_text()
        assert "sys.modules" not in text and '"pytest"' not in text, path.name


@pytest.mark.parametrize(
    ("environ", "module"),
    [
        ({}, "roadstar.settings.development"),
        ({"ALLOWED_HOSTS": "127.0.0.1,localhost"}, "roadstar.settings.development"),
        ({"ALLOWED_HOSTS": "[::1], studio.localhost"}, "roadstar.settings.development"),
        ({"ALLOWED_HOSTS": "studio.example.com"}, "roadstar.settings.production"),
        ({"ALLOWED_HOSTS": "localhost,studio.example.com"}, "roadstar.settings.production"),
        ({"ALLOWED_HOSTS": "*"}, "roadstar.settings.production"),
        ({"ALLOWED_HOSTS": "0.0.0.0"}, "roadstar.settings.production"),
        ({"ALLOWED_HOSTS": "192.168.1.20"}, "roadstar.settings.production"),
        ({"ROADSTAR_ENV": "production"}, "roadstar.settings.production"),
        ({"ROADSTAR_ENV": "Production ", "ALLOWED_HOSTS": "localhost"}, "roadstar.settings.production"),
        ({"ROADSTAR_ENV": "development", "ALLOWED_HOSTS": "studio.example.com"}, "roadstar.settings.development"),
    ],
)
def test_development_only_when_every_allowed_host_is_this_machine(environ, module):
    assert module_for(environ) == module


def test_an_unknown_roadstar_env_is_refused_by_name():
    with pytest.raises(roadstar_settings.SettingsRefused, match="ROADSTAR_ENV is 'staging'"):
        module_for({"ROADSTAR_ENV": "staging"})


def shell(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    return run(["manage.py", "shell", "--no-imports", "-c", code], tmp_path, **env)


def test_manage_py_chooses_development_on_this_machine(tmp_path):
    out = shell("from django.conf import settings as s; print(s.SETTINGS_MODULE, s.DEBUG, s.SECRET_KEY)", tmp_path)
    assert out.stdout.split() == ["roadstar.settings.development", "False", DEVELOPMENT_SECRET_KEY], out.stderr


def test_manage_py_chooses_production_for_a_public_host_and_refuses_without_a_key(tmp_path):
    out = run(["manage.py", "check"], tmp_path, ALLOWED_HOSTS="studio.example.com")
    assert out.returncode == 2 and out.stderr.startswith("Roadstar won't start: SECRET_KEY is not set.")
    assert "Traceback" not in out.stderr


def test_development_refuses_a_host_that_is_not_this_machine(tmp_path):
    out = run(["manage.py", "check"], tmp_path, ROADSTAR_ENV="development",
              ALLOWED_HOSTS="localhost,studio.example.com")
    assert out.returncode == 2 and "ALLOWED_HOSTS names studio.example.com, which is not this machine" in out.stderr


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "192.168.1.20"])
def test_development_refuses_an_address_other_machines_reach(tmp_path, address):
    # DEBUG=1 on 0.0.0.0 answered an invented Host header with Django's debug page; the public key forged sessions.
    out = run(["manage.py", "check"], tmp_path, ROADSTAR_ENV="development", DEBUG="1", BIND_ADDRESS=address)
    assert out.returncode == 2 and f"BIND_ADDRESS is {address}, which other machines can reach" in out.stderr
    assert "Traceback" not in out.stderr


def test_development_listens_on_this_machine(tmp_path):
    for address in ("127.0.0.1", "::1", "localhost"):
        out = run(["manage.py", "check"], tmp_path, ROADSTAR_ENV="development", DEBUG="1", BIND_ADDRESS=address)
        assert out.returncode == 0, out.stderr


def test_development_turns_debug_on_only_when_asked(tmp_path):
    code = "from django.conf import settings as s; print(s.DEBUG)"
    assert shell(code, tmp_path, DEBUG="1").stdout.strip() == "True"


# --- production -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY is not set."),
        ({"SECRET_KEY": DEVELOPMENT_SECRET_KEY}, "SECRET_KEY is the public development key."),
        ({"SECRET_KEY": "short-key"}, "SECRET_KEY is too weak"),
        ({"SECRET_KEY": "a" * 60}, "SECRET_KEY is too weak"),
        ({"SECRET_KEY": "django-insecure-" + GOOD_KEY}, "SECRET_KEY is too weak"),
        ({"DEBUG": "1"}, "DEBUG is on."),
        ({"DEBUG": "true"}, "DEBUG is on."),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS is not set"),
    ],
)
def test_production_refuses_to_start(tmp_path, env, said):
    out = run(["manage.py", "check"], tmp_path, **production(**env))
    assert out.returncode == 2 and out.stderr.startswith(f"Roadstar won't start: {said}"), out.stderr
    assert "Traceback" not in out.stderr


def test_production_refuses_through_the_web_entry_point_too(tmp_path):
    out = run(["-c", "import roadstar.asgi"], tmp_path, **production(SECRET_KEY=""))
    assert out.returncode == 2 and "Roadstar won't start: SECRET_KEY is not set." in out.stderr


def test_check_deploy_is_clean_in_production(tmp_path):
    out = run(["manage.py", "check", "--deploy", "--fail-level", "DEBUG"], tmp_path, **production())
    assert out.returncode == 0 and "System check identified no issues (0 silenced)." in out.stdout, (
        out.stdout + out.stderr
    )


def test_production_settings_are_the_secure_ones(tmp_path):
    code = textwrap.dedent("""
        from django.conf import settings as s
        print(s.SETTINGS_MODULE, s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,
              s.SECURE_HSTS_SECONDS >= 31536000, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, bool(s.SECURE_CSP),
              s.MAILERS["default"]["BACKEND"].rsplit(".", 2)[-2])
    """)
    out = shell(code, tmp_path, **production())
    assert out.stdout.split() == ["roadstar.settings.production", "False", *["True"] * 6, "smtp"], out.stderr


def test_a_tls_proxy_is_trusted_only_when_configured(tmp_path):
    code = "from django.conf import settings as s; print(s.SECURE_PROXY_SSL_HEADER)"
    assert shell(code, tmp_path, **production()).stdout.strip() == "None"
    trusted = shell(code, tmp_path, **production(SECURE_PROXY_SSL_HEADER="1"))
    assert trusted.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https')"


# The technical 500 and 404 pages of DEBUG, asked for in production settings with DEBUG forced on afterwards too:
# what the owner's browser gets is Roadstar's page, whatever the failure says.
ERROR_PAGES = textwrap.dedent("""
    import sys, types
    import django
    django.setup()
    from django.test import Client
    from django.test.utils import override_settings, setup_test_environment
    from django.urls import include, path

    def boom(request):
        raise RuntimeError("SECRET-DETAIL in the failing code")

    urls = types.ModuleType("boom_urls")
    urls.urlpatterns = [path("boom/", boom), path("", include("roadstar.urls"))]
    sys.modules["boom_urls"] = urls
    setup_test_environment(debug=False)
    client = Client(raise_request_exception=False)
    with override_settings(ROOT_URLCONF="boom_urls"):
        for address in ("/boom/", "/no-such-page/"):
            reply = client.get(address, secure=True, headers={"host": "studio.example.com"})
            body = reply.content.decode()
            print(reply.status_code, "Roadstar" in body, "SECRET-DETAIL" in body, "Traceback" in body,
                  "URLconf" in body, "DEBUG = True" in body)
""")


def test_production_answers_its_own_error_pages_never_debugs(tmp_path):
    out = shell(ERROR_PAGES, tmp_path, **production())
    lines = [line.split() for line in out.stdout.splitlines()]
    assert lines == [["500", "True", "False", "False", "False", "False"],
                     ["404", "True", "False", "False", "False", "False"]], out.stdout + out.stderr[-3000:]


# --- the development key's one line ----------------------------------------------------------------------------


def test_the_development_key_is_announced_once_by_the_web_process_only(tmp_path):
    commands = run(["manage.py", "check"], tmp_path)
    web = run(["-c", "import roadstar.asgi"], tmp_path)
    assert commands.returncode == web.returncode == 0, commands.stderr + web.stderr
    assert "development key" not in commands.stderr
    said = [line for line in web.stderr.splitlines() if "development key" in line]
    assert len(said) == 1 and said[0].startswith("Roadstar is running with its development key")
    assert "Warning" not in web.stderr and "warnings.warn" not in web.stderr


def test_a_key_of_your_own_is_not_announced(tmp_path):
    web = run(["-c", "import roadstar.asgi"], tmp_path, SECRET_KEY=GOOD_KEY)
    assert web.returncode == 0 and "development key" not in web.stderr


# --- every setting read is declared ---------------------------------------------------------------------------

CODE_DIRS = ("agents", "api", "checks", "companies", "contacts", "docs", "integrations", "mcp_server", "pages",
             "roadstar", "routines", "tools")
# Apps that may exist after a restructuring: read too when present.
MAYBE_DIRS = ("core", "home")


def _code_files():
    for name in (*CODE_DIRS, *MAYBE_DIRS):
        folder = ROOT / name
        if folder.is_dir():
            yield from (p for p in folder.rglob("*.py") if "migrations" not in p.parts and "settings" not in p.parts)


def _settings_read(tree) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "settings":
            if node.attr.isupper():
                names.add(node.attr)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "settings"
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
            names.add(node.args[1].value)
    return names


def test_every_setting_the_code_reads_is_declared():
    undeclared = {}
    for path in _code_files():
        for name in _settings_read(ast.parse(path.read_text())):
            if not hasattr(base, name) and not hasattr(global_settings, name):
                undeclared.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert undeclared == {}


_ENV_READ = re.compile(r"os\.environ\.get\(|os\.environ\[|os\.getenv\(|environ\.get\(")


def test_the_environment_is_read_by_the_settings_only():
    readers = [str(p.relative_to(ROOT)) for p in _code_files() if _ENV_READ.search(p.read_text())]
    assert readers == []


@pytest.mark.parametrize("value", ["many", "0", "2.5", "-3"])
def test_a_count_in_the_environment_that_is_not_a_whole_number_stops_the_start_saying_which(value):
    env = {**{k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}, "Q_WORKERS": value}
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert f"Roadstar won't start: Q_WORKERS is '{value}': it must be a whole number, 1 or more." in done.stderr
    assert "Traceback" not in done.stderr


def test_counts_in_the_environment_are_read_as_whole_numbers(monkeypatch):
    monkeypatch.setenv("ROADSTAR_DB_POOL_MAX", " 12 ")
    assert base.env_count("ROADSTAR_DB_POOL_MAX", 20, least=2) == 12
    monkeypatch.setenv("ROADSTAR_DB_POOL_MAX", "")
    assert base.env_count("ROADSTAR_DB_POOL_MAX", 20, least=2) == 20
    monkeypatch.setenv("ROADSTAR_DB_POOL_MAX", "1")
    with pytest.raises(SettingsRefused, match="ROADSTAR_DB_POOL_MAX is '1': it must be a whole number, 2 or more"):
        base.env_count("ROADSTAR_DB_POOL_MAX", 20, least=2)
