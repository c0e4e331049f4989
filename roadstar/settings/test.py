"""The suite's settings, named by pytest.ini (pytest-django): a key of its own, DEBUG off, the test host names.

The environment still chooses the database (DATABASE_URL) and the channel layer (REDIS_URL), as CI runs the suite
on SQLite and on PostgreSQL. Each run gets its own channel-layer file, so parallel runs never read each other's
messages; a test that starts another process hands it the file with CHANNELS_SQLITE_PATH.
"""

import os
import tempfile
from pathlib import Path

from roadstar.settings.base import *  # noqa: F403
from roadstar.settings.base import CHANNEL_LAYERS

ROADSTAR_ENV = "test"

SECRET_KEY = "roadstar-test-key-only-for-the-test-suite-4f0c2a9e1b7d"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
ROADSTAR_NETWORK_GUARD = "raise"  # a network call with a transaction open fails the test that makes it
EDGAR_USER_AGENT = "Roadstar tests tests@roadstar.invalid"  # the recorded EDGAR answers never reach the internet
# No web search provider, whatever the environment says: the tests that need one set it on recorded responses.
SEARXNG_URL = None
BRAVE_SEARCH_API_KEY = None
WEB_SEARCH_PROVIDER = None

if CHANNEL_LAYERS["default"]["BACKEND"] == "roadstar.channel_layer.SQLiteChannelLayer" and not os.environ.get(
    "CHANNELS_SQLITE_PATH"
):
    CHANNEL_LAYERS["default"]["CONFIG"]["path"] = str(
        Path(tempfile.gettempdir()) / f"roadstar-channels-{os.getpid()}.sqlite3"
    )

# The workspace's wall clock in tests: a ceiling for a loaded machine, not the spec's 120 s; the tests that stop a
# run set their own few seconds.
WORKSPACE_WALL_SECONDS = 60
