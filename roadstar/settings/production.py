"""Roadstar served to anyone beyond this machine (ROADSTAR_ENV=production, or ALLOWED_HOSTS naming another host).

It refuses to start, naming what to set, without a SECRET_KEY of its own (the public development key, a short
one or Django's `django-insecure-` kind are refused too: the key signs sessions and derives the key that encrypts
the owner's account tokens), without ALLOWED_HOSTS, or with DEBUG on. Cookies go over HTTPS only, HTTP is
redirected to HTTPS, HSTS is on; `manage.py check --deploy` is clean (tests/roadstar/test_settings.py).

Behind a proxy that ends TLS (nginx, Caddy, a platform's router), set SECURE_PROXY_SSL_HEADER=1 so Django trusts
the proxy's X-Forwarded-Proto: only when the proxy sets that header itself and never passes on a client's.
"""

import os

from roadstar.settings import DEVELOPMENT_SECRET_KEY, SettingsRefused, hosts
from roadstar.settings.base import *  # noqa: F403
from roadstar.settings.base import SMTP_MAILER, env_flag

ROADSTAR_ENV = "production"

_KEY_HELP = (
    'Make one with: python -c "import secrets; print(secrets.token_urlsafe(50))" and keep it secret; changing '
    "it later signs everyone out and, unless ROADSTAR_TOKEN_KEY is set, makes stored account tokens unreadable."
)

SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not SECRET_KEY:
    raise SettingsRefused(f"SECRET_KEY is not set. {_KEY_HELP}")
if SECRET_KEY == DEVELOPMENT_SECRET_KEY:
    raise SettingsRefused(f"SECRET_KEY is the public development key. {_KEY_HELP}")
# Django's own measure of a key too weak to keep sessions safe (security.W009 of `check --deploy`).
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
    raise SettingsRefused(f"SECRET_KEY is too weak: at least 50 characters, not all the same. {_KEY_HELP}")

if env_flag("DEBUG", False):
    raise SettingsRefused(
        "DEBUG is on. Its error pages show code, settings and the owner's data to whoever hits an error; unset "
        "DEBUG (or use the development settings on this machine only)."
    )
DEBUG = False

# A model address an owner types on Settings must be a public one, unless the server hosts its own model server
# (core.web_addresses.model_address_refused); the environment's OPENAI_BASE_URL is the operator's and always holds.
ROADSTAR_LOCAL_MODELS = env_flag("ROADSTAR_LOCAL_MODELS", False)

ALLOWED_HOSTS = hosts(os.environ.get("ALLOWED_HOSTS"))
if not ALLOWED_HOSTS:
    raise SettingsRefused(
        "ALLOWED_HOSTS is not set: name the host names Roadstar is reached at, comma-separated "
        "(e.g. ALLOWED_HOSTS=studio.example.com)."
    )

# HTTPS only. A proxy in front that ends TLS must say so (SECURE_PROXY_SSL_HEADER=1, see the docstring), or every
# request looks like plain HTTP and is redirected forever.
SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", True)
if env_flag("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
# A year of HSTS, subdomains included: Roadstar runs on a host name of its own. SECURE_HSTS_SECONDS=0 turns it
# off while trying HTTPS out (a browser that saw the header keeps to HTTPS for that long).
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS") or 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Outgoing mail of the local mailbox goes over SMTP, never into a log nobody reads: without EMAIL_HOST that is a
# mail server on this machine, and a send it refuses comes back to the agent as `unavailable`.
MAILERS = {"default": SMTP_MAILER}
