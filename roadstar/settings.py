"""Roadstar's settings. Everything that differs between machines comes from the environment.

The embedded default (no environment at all) is SQLite in WAL mode, the django-q2 ORM broker, a channel layer
in a SQLite file and the local providers: the one-command start and the tests. `DATABASE_URL` moves the data to
PostgreSQL and `REDIS_URL` the channel layer to Redis.
"""

import os
import sys
import warnings
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent

DEVELOPMENT_SECRET_KEY = "roadstar-development-key-not-for-production"
SECRET_KEY = os.environ.get("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
DEBUG = os.environ.get("DEBUG", "1" if SECRET_KEY == DEVELOPMENT_SECRET_KEY else "0") == "1"
if SECRET_KEY == DEVELOPMENT_SECRET_KEY and "pytest" not in sys.modules:
    warnings.warn(
        "SECRET_KEY is not set: Roadstar is using its development key. Anyone who knows it can forge "
        "sessions and read stored tokens. Set SECRET_KEY before you put Roadstar on a network.",
        stacklevel=1,
    )

ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_q",
    "channels",
    "core",
    "agents",
    "contacts",
    "companies",
    "docs",
    "routines",
    "tools",
    "checks",
    "integrations",
    "mcp_server",
    "home",
    "pages",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
else:
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": SQLITE_PATH,
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
if os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [os.environ["REDIS_URL"]]},
        }
    }
else:
    if os.environ.get("CHANNELS_SQLITE_PATH"):
        _channels_path = Path(os.environ["CHANNELS_SQLITE_PATH"])
    elif "pytest" in sys.modules:
        import tempfile

        _channels_path = Path(tempfile.gettempdir()) / f"roadstar-channels-{os.getpid()}.sqlite3"
    else:
        _channels_path = SQLITE_PATH.parent / "channels.sqlite3"
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "roadstar.channel_layer.SQLiteChannelLayer", "CONFIG": {"path": str(_channels_path)}}
    }

# django-q2 with the ORM broker: it hands out again a task that was never acknowledged, so a worker that dies
# mid-task loses nothing (tasks are written to be idempotent). retry must exceed timeout or tasks run twice.
Q_CLUSTER = {
    "name": "roadstar",
    "orm": "default",
    "workers": int(os.environ.get("Q_WORKERS", "1" if not os.environ.get("DATABASE_URL") else "4")),
    "timeout": 600,
    "retry": 660,
    "max_attempts": 5,
    "ack_failures": True,
    "catch_up": False,
    "sync": os.environ.get("Q_SYNC") == "1",
    "label": "Tasks",
}

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

# The judge of the owner's yes is the cheapest model; None means no judge (the check asks where rules can't decide).
CHECK_JUDGE_MODEL = os.environ.get("CHECK_JUDGE_MODEL") or (
    ROADSTAR_MODELS[CHEAPEST_MODEL]["name"] if MODEL_CONFIGURED else None
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Outgoing mail of the local mailbox (integrations/providers/local_mail.py): SMTP when EMAIL_HOST is set, else
# written to the worker's log. Tests use Django's locmem outbox. The SMTP backend is Django's, telling a failure
# after which the server may have taken the email from one after which it didn't (integrations/smtp.py).
_EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
MAILERS = {
    "default": {
        "BACKEND": "integrations.smtp.EmailBackend",
        "OPTIONS": {
            "host": _EMAIL_HOST,
            "port": int(os.environ.get("EMAIL_PORT", "587")),
            "username": os.environ.get("EMAIL_HOST_USER", ""),
            "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "use_tls": os.environ.get("EMAIL_USE_TLS", "1") == "1",
            "timeout": 30,
        },
    }
    if _EMAIL_HOST
    else {"BACKEND": "django.core.mail.backends.console.EmailBackend"},
}

# A network call (SMTP, Google, QuickBooks, OAuth, the model) with a transaction open: "raise" refuses it (in
# development, and the tests set it), "log" logs an error and goes on (core/network.py).
ROADSTAR_NETWORK_GUARD = os.environ.get("ROADSTAR_NETWORK_GUARD", "raise" if DEBUG else "log")
