"""What every way of running Roadstar shares. Everything that differs between machines comes from the environment.

The embedded default (no environment at all) is SQLite in WAL mode, the django-q2 ORM broker, a channel layer
in a SQLite file and the local providers: the one-command start and the tests. `DATABASE_URL` moves the data to
PostgreSQL and `REDIS_URL` the channel layer to Redis.

SECRET_KEY, DEBUG and ALLOWED_HOSTS are each way's own (development.py, test.py, production.py). Every other
setting the code reads is declared here, so `settings.NAME` never needs a default at the place it is read
(tests/roadstar/test_settings.py holds the code to that).
"""

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.utils.csp import CSP

from roadstar.settings import SettingsRefused, hosts

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_flag(name: str, default: bool) -> bool:
    """A yes/no from the environment: 1, true, yes or on (any case) is yes; unset is the default."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_count(name: str, default: int, *, least: int = 1) -> int:
    """A whole number from the environment, at least `least`; unset is the default. Anything else stops the
    start with what is wrong and where, rather than a traceback from int()."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value.strip())
    except ValueError:
        number = None
    if number is None or number < least:
        raise SettingsRefused(f"{name} is {value!r}: it must be a whole number, {least} or more.")
    return number


# Which way of running this is: "development", "test" or "production", each module naming itself.
ROADSTAR_ENV = ""

CSRF_TRUSTED_ORIGINS = hosts(os.environ.get("CSRF_TRUSTED_ORIGINS"))

INSTALLED_APPS = [
    "daphne",
    "roadstar.admin_site.AdminConfig",  # Django's admin, under Roadstar's name
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # search: the full-text search field and query on PostgreSQL
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_q",
    "channels",
    "core",
    "team",
    "records",
    "agents",
    "contacts",
    "companies",
    "docs",
    "routines",
    "agent_templates",
    "tools",
    "checks",
    "integrations",
    "workspace",
    "search",
    "research",
    "mcp_server",
    "home",
    "pages",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.owner_zone.OwnerTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so it sees a view's exception first: a database busy past its timeout answers "busy, try again".
    "core.middleware.BusyDatabaseMiddleware",
]

ROOT_URLCONF = "roadstar.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

WSGI_APPLICATION = "roadstar.wsgi.application"
ASGI_APPLICATION = "roadstar.asgi.application"

# SQLite under several processes (web and worker) needs WAL, a busy timeout and IMMEDIATE transactions, or
# writers fail with "database is locked" instead of waiting their turn. In WAL mode synchronous=NORMAL is safe
# from corruption and saves an fsync per commit (a power cut may lose the last commits, not the database).
SQLITE_PATH = Path(os.environ.get("SQLITE_PATH", BASE_DIR / "var" / "roadstar.sqlite3"))
if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"])}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        from psycopg_pool import ConnectionPool  # (imported here: the embedded default never loads psycopg)

        # A pool of connections for the process (psycopg_pool, through Django's own `pool` option). Django keeps a
        # connection per thread, and the ASGI server runs each request's view in a thread of its own: without a
        # pool every request opened a new PostgreSQL connection (a server process forked and signed in: a chat
        # POST took 29 ms, 20 with the pool, bench/PERFORMANCE.md). A connection goes back to the pool when the
        # request ends, and is tried before it is handed out again, so a restarted database costs no request. The
        # worker keeps one connection per process instead (core/management/commands/worker.py: keep_connections).
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 2,
            "max_size": env_count("ROADSTAR_DB_POOL_MAX", 20, least=2),
            "timeout": 10,
            "check": ConnectionPool.check_connection,
        }
        # The kept statements (core.rows.kept_cursor: a step's writes and reads, the check's read) are prepared
        # once they have run this many times on a connection, so the server plans each once a connection, not every
        # step; Django's own queries bind on the client and are never prepared (Django turns preparing off by
        # default for poolers in transaction mode, such as PgBouncer's: with one, set ROADSTAR_DB_PREPARE=off).
        if os.environ.get("ROADSTAR_DB_PREPARE", "on") != "off":
            DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
else:
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;",
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# daphne serves no static files of its own: WhiteNoise does, from the apps' folders directly (no collectstatic
# needed for `make run`); `manage.py collectstatic` into STATIC_ROOT is for a production setup.
WHITENOISE_USE_FINDERS = True

# Channels: how what a worker does reaches the owner's open pages (core/live.py). Redis when REDIS_URL is set
# (any number of machines). Else a small SQLite file that daphne and the worker, two processes on one machine,
# both open (roadstar/channel_layer.py): the in-memory layer would not cross processes. Each test run has its own.


def redis_channel_layer(url: str) -> dict[str, Any]:
    """channels_redis on `url`, with connection options that keep an idle page's websocket alive.

    channels_redis waits for a consumer's next message with BZPOPMIN for 5 s (its `brpop_timeout`); redis-py's
    default `socket_timeout` is 5 s too, so an idle wait often ended in "Timeout reading from …" and every idle
    page's websocket closed with 1011. The read timeout here is three times the blocking read's, so a wait ends
    on Redis's answer, while a Redis that stops answering is still noticed; the connection is checked before use
    after 30 s idle and kept alive by TCP keepalive (a NAT or load balancer drops a silent connection)."""
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [{"address": url, "socket_timeout": 15, "socket_connect_timeout": 5,
                              "socket_keepalive": True, "health_check_interval": 30}]},
    }


if os.environ.get("REDIS_URL"):
    # Typed loosely: test.py sets the SQLite layer's path in CONFIG.
    CHANNEL_LAYERS: dict[str, dict[str, Any]] = {"default": redis_channel_layer(os.environ["REDIS_URL"])}
else:
    # test.py puts each run's file in the temporary folder instead.
    _channels_path = Path(os.environ.get("CHANNELS_SQLITE_PATH") or SQLITE_PATH.parent / "channels.sqlite3")
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "roadstar.channel_layer.SQLiteChannelLayer", "CONFIG": {"path": str(_channels_path)}}
    }

# A running turn's lease (agents/runtime/scheduler.py): its worker renews it every third of this; once it runs out
# the worker is taken for dead and the conversation is claimed again (the worker's lease watch looks every third of
# it). Far below Q_CLUSTER's retry, so the broker's redelivery of a dead worker's task comes long after, and finds
# its token stale. At least 6 s: a renewal must fit between two.
ROADSTAR_TURN_LEASE_SECONDS = env_count("ROADSTAR_TURN_LEASE_SECONDS", 15, least=6)

# django-q2 with the ORM broker: it hands out again a task that was never acknowledged, so a worker that dies
# mid-task loses nothing (tasks are written to be idempotent). retry must exceed timeout or tasks run twice.
Q_CLUSTER = {
    "name": "roadstar",
    "orm": "default",
    "workers": env_count("Q_WORKERS", 1 if not os.environ.get("DATABASE_URL") else 4),
    "timeout": 600,
    "retry": 660,
    "max_attempts": 5,
    "ack_failures": True,
    "catch_up": False,
    "sync": os.environ.get("Q_SYNC") == "1",
    "label": "Tasks",
    # The ORM broker's table, claim and acknowledgement, with a wake-up on enqueue (LISTEN/NOTIFY on PostgreSQL, a
    # named pipe beside the SQLite file): the pusher looks for a task as soon as one is queued (roadstar/broker.py).
    "broker_class": "roadstar.broker.WakingORM",
    # The fallback poll: how long the pusher waits for a wake-up before it looks anyway. It bounds what a lost
    # wake-up costs and how soon a task a dead worker left (after `retry`) is handed out again; a chat message
    # doesn't wait for it (django-q2's default, 0.2 s, made one wait about 113 ms; 0.05 s, 54 ms).
    "poll": float(os.environ.get("Q_POLL", "1")),
    # django-q2 logs each task it runs at INFO, to a handler of its own: the console shows its warnings and errors.
    "log_level": os.environ.get("LOG_LEVEL", "WARNING").upper(),
}
# The SQLite wake-up pipe's path; None puts it beside the database file (the tests, whose database is in memory,
# give one of their own).
ROADSTAR_QUEUE_WAKE_PIPE: str | None = None

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "api.tokens.ApiTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Every failure in one shape, {error, message}, with the spec's error kinds (api/errors.py).
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
}
# The API's schema is generated with its own settings (api/urls.py: SCHEMA_SETTINGS, which name its enums), and
# tests/api pin it. drf-spectacular's `check --deploy` hook would generate it again with these global settings
# instead, and warn about enum names the view's settings already give.
SPECTACULAR_SETTINGS = {"ENABLE_DJANGO_DEPLOY_CHECK": False}

# The model layer. Roadstar's four model ids map to real model names on any OpenAI-compatible endpoint.
# With no OPENAI_API_KEY and no OPENAI_BASE_URL, no model is configured and the product says so on Home.
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL") or None
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY") or None
MODEL_CONFIGURED = bool(OPENAI_API_KEY or OPENAI_BASE_URL)
# Each Roadstar model id: the real model name it maps to (MODEL_<ID> in the environment) and its prices in
# dollars per million tokens (spec/reference/models.md). `reasoning`: whether to send a thinking level.
def _model(model_id: str, input_price: float, cached: float, output: float) -> dict:
    env = "MODEL_" + model_id.upper().replace("-", "_").replace(".", "_")
    return {
        "name": os.environ.get(env, model_id),
        "from_env": bool(os.environ.get(env)),  # the owner's Settings page can't change a name set here
        "prices": {"input": input_price, "cached_input": cached, "output": output},
        "reasoning": os.environ.get("MODEL_REASONING_EFFORT", "0") == "1",
    }


ROADSTAR_MODELS = {
    "gpt-6-luna": _model("gpt-6-luna", 0.1, 0.01, 0.5),
    "gpt-6.1-terra": _model("gpt-6.1-terra", 1, 0.05, 5),
    "gpt-6.1-sol": _model("gpt-6.1-sol", 2, 0.1, 10),
    "gpt-6-astra": _model("gpt-6-astra", 10, 1, 50),
}
CHEAPEST_MODEL = "gpt-6-luna"

# The judge of the owner's yes (checks.judge.configured_judge) is on the workspace's model endpoint, the environment's
# or the owner's Settings: its light model unless CHECK_JUDGE_MODEL names another. CHECK_JUDGE=off: no judge at all
# (the check asks where its rules can't decide); with no model connected there is none either.
CHECK_JUDGE_MODEL = os.environ.get("CHECK_JUDGE_MODEL") or None
CHECK_JUDGE = env_flag("CHECK_JUDGE", True)
# Whether the owner's Settings page may point the agents at a model server on this machine or its private network
# (loopback, private, link-local addresses): yes on one's own machine (a local Ollama is the common case), no in
# production unless ROADSTAR_LOCAL_MODELS=1 (otherwise an owner could probe the server's network with Test).
ROADSTAR_LOCAL_MODELS = env_flag("ROADSTAR_LOCAL_MODELS", True)

# The console shows warnings and errors only (LOG_LEVEL=INFO for more): no line per request (the web server's access
# log is off in the Procfile, the task worker's per-task lines are INFO), and a refused request (a 403, a 400) is
# one line without its traceback (core.log_filters).
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals_in_one_line": {"()": "core.log_filters.RefusalsInOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusals_in_one_line"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}

# Outgoing mail of the local mailbox (integrations/providers/local_mail.py): SMTP when EMAIL_HOST is set, else
# written to the worker's log. Tests use Django's locmem outbox. The SMTP backend is Django's, telling a failure
# after which the server may have taken the email from one after which it didn't (integrations/smtp.py).
SMTP_MAILER = {
    "BACKEND": "integrations.smtp.EmailBackend",
    "OPTIONS": {
        "host": os.environ.get("EMAIL_HOST") or "localhost",
        "port": int(os.environ.get("EMAIL_PORT", "587")),
        "username": os.environ.get("EMAIL_HOST_USER", ""),
        "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
        "use_tls": env_flag("EMAIL_USE_TLS", True),
        "timeout": 30,
    },
}
_CONSOLE_MAILER = {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
MAILERS = {"default": SMTP_MAILER if os.environ.get("EMAIL_HOST") else _CONSOLE_MAILER}

# Where Roadstar is reached from outside: OAuth redirects, the MCP server's address. The README's table lists it.
ROADSTAR_URL = os.environ.get("ROADSTAR_URL", "").rstrip("/")
# The port `make run` and the Procfile serve on; the example workspace's sign-in line prints it.
PORT = os.environ.get("PORT") or "8000"
# The example owner's password (`manage.py seed_demo`); production refuses the public default (production.py).
DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD") or ""

# The local providers' bytes: files (integrations/files/storage.py) and mail (integrations/local/mailbox.py).
ROADSTAR_FILES_ROOT = Path(os.environ.get("ROADSTAR_FILES_ROOT") or BASE_DIR / "var" / "files")
ROADSTAR_MAIL_ROOT = Path(os.environ.get("ROADSTAR_MAIL_ROOT") or BASE_DIR / "var" / "mail")

# The workspace (workspace/): the agents' sandboxed computer. Its folders (one per agent, and shared, per
# workspace) stay between runs under WORKSPACE_ROOT; WORKSPACE_VENV is its own Python (requirements-workspace.txt,
# made by `make run` / `make test`). A run's limits: the spec's 120 s and 300 tool calls, and what the spec leaves
# to Roadstar (memory by RLIMIT_DATA, the largest file, processes, its private /tmp).
# The address the web process listens on (the Procfile's daphne reads it too): the development settings refuse one
# other machines can reach (development.py).
BIND_ADDRESS = os.environ.get("BIND_ADDRESS") or "127.0.0.1"
WORKSPACE_ROOT = Path(os.environ.get("WORKSPACE_ROOT") or BASE_DIR / "var" / "workspace")
WORKSPACE_VENV = Path(os.environ.get("WORKSPACE_VENV") or BASE_DIR / "var" / "workspace-venv")
WORKSPACE_WALL_SECONDS = float(os.environ.get("WORKSPACE_WALL_SECONDS") or 120)
WORKSPACE_TOOL_CALLS = int(os.environ.get("WORKSPACE_TOOL_CALLS") or 300)
WORKSPACE_MEMORY_BYTES = int(os.environ.get("WORKSPACE_MEMORY_BYTES") or 1024 * 1024 * 1024)
WORKSPACE_FILE_BYTES = int(os.environ.get("WORKSPACE_FILE_BYTES") or 100 * 1024 * 1024)
WORKSPACE_PROCESSES = int(os.environ.get("WORKSPACE_PROCESSES") or 256)
WORKSPACE_TMP_BYTES = int(os.environ.get("WORKSPACE_TMP_BYTES") or 256 * 1024 * 1024)
# When Roadstar runs as root, each workspace's runs are made as a host user of their own (this number plus a slot
# for the workspace): root's processes are exempt from the process limit that stops a fork bomb.
WORKSPACE_UID_BASE = int(os.environ.get("WORKSPACE_UID_BASE") or 200_000)
# What one agent's folder and the shared folder may hold together, during a run too (workspace/sandbox.py): a file
# can't grow past the room left, and a run whose files pass it is stopped; a folder over it can always be cleaned.
WORKSPACE_FOLDER_BYTES = int(os.environ.get("WORKSPACE_FOLDER_BYTES") or 2 * 1024 * 1024 * 1024)
# Where no cgroup bounds a run's processes (workspace/limits.py), fewer of them: with each held under the memory
# limit by RLIMIT_DATA and the run's total watched, fewer processes keep the worst between two looks small.
WORKSPACE_FALLBACK_PROCESSES = int(os.environ.get("WORKSPACE_FALLBACK_PROCESSES") or 32)

# Account tokens at rest (integrations/crypto.py): Fernet keys, comma-separated; empty derives one from SECRET_KEY.
ROADSTAR_TOKEN_KEY = os.environ.get("ROADSTAR_TOKEN_KEY", "")

# Seconds the check waits for its judge before it asks the owner instead (checks/judge.py).
CHECK_JUDGE_TIMEOUT = float(os.environ.get("CHECK_JUDGE_TIMEOUT") or 15)

# The owner's accounts (integrations/oauth.py). A redirect URI left empty is this server's own callback address.
GOOGLE_CLIENT_ID = os.environ.get("GOOGLE_CLIENT_ID") or None
GOOGLE_CLIENT_SECRET = os.environ.get("GOOGLE_CLIENT_SECRET") or None
GOOGLE_REDIRECT_URI = os.environ.get("GOOGLE_REDIRECT_URI") or None
QUICKBOOKS_CLIENT_ID = os.environ.get("QUICKBOOKS_CLIENT_ID") or None
QUICKBOOKS_CLIENT_SECRET = os.environ.get("QUICKBOOKS_CLIENT_SECRET") or None
QUICKBOOKS_REDIRECT_URI = os.environ.get("QUICKBOOKS_REDIRECT_URI") or None
QUICKBOOKS_ENVIRONMENT = os.environ.get("QUICKBOOKS_ENVIRONMENT") or "sandbox"
# OneDrive (Microsoft identity platform): an app registration's client id and secret; the tenant is "common" (work,
# school and personal Microsoft accounts), "organizations", "consumers" or one directory's id.
MICROSOFT_CLIENT_ID = os.environ.get("MICROSOFT_CLIENT_ID") or None
MICROSOFT_CLIENT_SECRET = os.environ.get("MICROSOFT_CLIENT_SECRET") or None
MICROSOFT_REDIRECT_URI = os.environ.get("MICROSOFT_REDIRECT_URI") or None
MICROSOFT_TENANT = os.environ.get("MICROSOFT_TENANT") or "common"

# search's related results (search/embeddings.py): an OpenAI-compatible embeddings endpoint ("https://api.openai.com/v1"
# or a local server's /v1). Without a URL nothing is embedded and search.search has no related results. The key is
# OPENAI_API_KEY's unless given; DIMENSIONS is sent only when set (text-embedding-3 models can shorten their vectors,
# which makes ranking them cheaper); a related result is at least MIN_SIMILARITY (cosine) like the query.
ROADSTAR_EMBEDDING_URL = os.environ.get("ROADSTAR_EMBEDDING_URL") or None
ROADSTAR_EMBEDDING_MODEL = os.environ.get("ROADSTAR_EMBEDDING_MODEL") or "text-embedding-3-small"
ROADSTAR_EMBEDDING_KEY = os.environ.get("ROADSTAR_EMBEDDING_KEY") or OPENAI_API_KEY
ROADSTAR_EMBEDDING_DIMENSIONS = int(os.environ.get("ROADSTAR_EMBEDDING_DIMENSIONS") or 0) or None
ROADSTAR_EMBEDDING_MIN_SIMILARITY = float(os.environ.get("ROADSTAR_EMBEDDING_MIN_SIMILARITY") or 0.3)

# The web group's search provider (integrations/web/providers.py): a self-hosted SearXNG's address, or a Brave
# Search API key; WEB_SEARCH_PROVIDER ("searxng" or "brave") picks one when both are set. Without either, the web
# group is absent.
SEARXNG_URL = os.environ.get("SEARXNG_URL") or None
BRAVE_SEARCH_API_KEY = os.environ.get("BRAVE_SEARCH_API_KEY") or None
WEB_SEARCH_PROVIDER = os.environ.get("WEB_SEARCH_PROVIDER") or None

# Content-Security-Policy, in every way of running (so development shows what production would block). Scripts
# and styles come from Roadstar's own static files; the admin's few inline ones carry the request's nonce. Images
# are Roadstar's own or a doc's embedded pictures (data:), as pages/mdx.py allows. Nothing loads from elsewhere,
# and no page may be framed. Forms post here, and the connect pages' POST redirects on to Google or Intuit to
# sign in (Chromium applies form-action to that redirect). connect-src 'self' covers the live Home's websocket.
SECURE_CSP: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF, "https://accounts.google.com", "https://appcenter.intuit.com"],
}

# A network call (SMTP, Google, QuickBooks, OAuth, the model) with a transaction open: "raise" refuses it
# (development.py and test.py choose it), "log" logs an error and goes on (core/network.py).
ROADSTAR_NETWORK_GUARD = os.environ.get("ROADSTAR_NETWORK_GUARD", "log")

# The filings group reads SEC EDGAR, which asks every client to name itself and a contact in its User-Agent
# ("Ortiz Bakery owner@ortizbakery.com") and to stay under 10 requests a second. Empty: filings says it isn't set up.
EDGAR_USER_AGENT = os.environ.get("EDGAR_USER_AGENT", "")
EDGAR_REQUESTS_PER_SECOND = int(os.environ.get("EDGAR_REQUESTS_PER_SECOND", "10"))
