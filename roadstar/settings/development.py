"""`make run` on this machine: the development key unless SECRET_KEY is set.

DEBUG is off unless DEBUG=1: someone trying Roadstar sees Roadstar's own pages for a missing page or an error,
not Django's (which list every address and show code); a developer who wants those sets DEBUG=1. Tracebacks go
to the console either way.

Only for host names that are this machine's own (127.0.0.1, localhost, [::1]): with any other name in
ALLOWED_HOSTS it refuses to start, because anyone who can reach it could forge a session with the public key and
read DEBUG's pages. Serving others is production.py's job (ROADSTAR_ENV=production).

Likewise for the address it listens on: BIND_ADDRESS must be this machine's own (127.0.0.1, ::1, localhost). On
0.0.0.0 anyone who reaches the port can send `Host: localhost` (forging a session with the public key), and with
DEBUG=1 an invented Host header is answered with Django's debug page, settings and all.
"""

import os

from roadstar.settings import DEVELOPMENT_SECRET_KEY, LOCAL_DEFAULT_HOSTS, SettingsRefused, hosts, is_local
from roadstar.settings.base import *  # noqa: F403
from roadstar.settings.base import BIND_ADDRESS, env_flag

ROADSTAR_ENV = "development"

SECRET_KEY = os.environ.get("SECRET_KEY") or DEVELOPMENT_SECRET_KEY
DEBUG = env_flag("DEBUG", False)
ALLOWED_HOSTS = hosts(os.environ.get("ALLOWED_HOSTS")) or hosts(LOCAL_DEFAULT_HOSTS)
# A network call made with a transaction open fails loudly here, where it is found, rather than in production.
ROADSTAR_NETWORK_GUARD = os.environ.get("ROADSTAR_NETWORK_GUARD", "raise")

_public = [h for h in ALLOWED_HOSTS if not is_local(h)]
if _public:
    raise SettingsRefused(
        f"ALLOWED_HOSTS names {', '.join(_public)}, which is not this machine, but these are the development "
        "settings (the public development key, DEBUG). To serve other machines set ROADSTAR_ENV=production and "
        "a SECRET_KEY of your own (the README's \"Running in production\" says what else)."
    )

if not is_local(BIND_ADDRESS):
    raise SettingsRefused(
        f"BIND_ADDRESS is {BIND_ADDRESS}, which other machines can reach, but these are the development settings "
        "(the public development key, DEBUG's pages). Listen on 127.0.0.1 (unset BIND_ADDRESS), or to serve other "
        "machines set ROADSTAR_ENV=production and a SECRET_KEY of your own (the README's \"Running in production\")."
    )
