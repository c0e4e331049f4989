"""Roadstar's settings, one module per way of running it:

- `base`: everything the others share; every setting the code reads is declared there, from the environment.
- `development`: `make run` on this machine. The development key and DEBUG, and only for local host names: it
  refuses to serve any other name.
- `test`: the suite, chosen by pytest.ini.
- `production`: anything served beyond this machine. It refuses to start without a real SECRET_KEY and
  ALLOWED_HOSTS, or with DEBUG on; cookies are secure, HSTS is on, and so on (production.py).

`DJANGO_SETTINGS_MODULE` names the module when it is set. Otherwise manage.py, asgi.py and wsgi.py call
`configure()`, which chooses from `ROADSTAR_ENV` (`production` or `development`), and without it from
`ALLOWED_HOSTS`: development only when every allowed host is this machine, production as soon as one is not.

This module holds no settings itself: importing `roadstar.settings.test` must not run another module's checks.
"""

from __future__ import annotations

import importlib
import os
import sys

from django.core.exceptions import ImproperlyConfigured

DEVELOPMENT_SECRET_KEY = "roadstar-development-key-not-for-production"
LOCAL_DEFAULT_HOSTS = "127.0.0.1,localhost,[::1]"

MODULES = {
    "development": "roadstar.settings.development",
    "production": "roadstar.settings.production",
    "test": "roadstar.settings.test",
}


class SettingsRefused(ImproperlyConfigured):
    """Roadstar won't start with these settings; the message says what to set (shown without a traceback)."""


def hosts(value: str | None) -> list[str]:
    """ALLOWED_HOSTS as written in the environment: comma-separated, spaces around names ignored."""
    return [h.strip() for h in (value or "").split(",") if h.strip()]


def is_local(host: str) -> bool:
    """A host name that only this machine answers to (Django's test client's `testserver` counts)."""
    name = host.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return (
        name in ("localhost", "::1", "testserver")
        or name.endswith(".localhost")  # RFC 6761: always the loopback
        or (name.startswith("127.") and name.replace(".", "").isdigit() and name.count(".") == 3)
    )


def module_for(environ) -> str:
    """The settings module for this environment (see the module's docstring)."""
    wanted = (environ.get("ROADSTAR_ENV") or "").strip().lower()
    if wanted:
        if wanted not in MODULES:
            raise SettingsRefused(
                f"ROADSTAR_ENV is {wanted!r}; it takes one of {', '.join(sorted(MODULES))} (or leave it unset)."
            )
        return MODULES[wanted]
    names = hosts(environ.get("ALLOWED_HOSTS")) or hosts(LOCAL_DEFAULT_HOSTS)
    return MODULES["development"] if all(is_local(h) for h in names) else MODULES["production"]


def configure(*, announce: bool = False) -> str:
    """Choose the settings module (unless DJANGO_SETTINGS_MODULE names one) and load it now.

    A module that refuses the environment stops the process with its plain message rather than a traceback from
    deep inside Django. `announce`: the web process (one per `make run`) says when the development key is in use.
    """
    try:
        module = os.environ.get("DJANGO_SETTINGS_MODULE") or module_for(os.environ)
        os.environ["DJANGO_SETTINGS_MODULE"] = module
        loaded = importlib.import_module(module)
    except SettingsRefused as refused:
        sys.stderr.write(f"Roadstar won't start: {refused}\n")
        raise SystemExit(2) from None
    if announce and getattr(loaded, "SECRET_KEY", None) == DEVELOPMENT_SECRET_KEY:
        sys.stderr.write(
            "Roadstar is running with its development key (SECRET_KEY is not set). That is fine on this machine; "
            "before serving anyone else, see \"Running in production\" in the README.\n"
        )
    return module
