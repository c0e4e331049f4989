"""An idle page's websocket outlives the channel layer's blocking read, on Redis and on the SQLite layer.

channels_redis waits for a consumer's next message with BZPOPMIN for 5 s; with redis-py's default 5 s socket
timeout, an idle wait ended in "Timeout reading from …" and the websocket closed with 1011, so a page left open
stopped hearing of changes. Here a signed-in page stays idle for 12 s (past both) and still hears the next change.

The Redis test starts a redis-server of its own on a free loopback port, with the layer configured as production
configures it (roadstar.settings.base.redis_channel_layer); it skips where no redis-server binary is installed
(scripts/ensure-redis installs it on CI). The same test runs on the embedded default's SQLite layer.
"""

import asyncio
import shutil
import socket
import subprocess
import time

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings

from roadstar.settings.base import redis_channel_layer
from tests.home.test_live import record, run, socket_for

IDLE = 12  # seconds: past channels_redis's 5 s blocking read and redis-py's default 5 s socket timeout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server binary: scripts/ensure-redis installs it (apt-get install redis-server)")
    port = free_port()
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                               "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("the test's redis-server never listened")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


def idle_then_hear(org) -> None:
    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        await asyncio.sleep(IDLE)  # the page is open and nothing happens
        assert await home.receive_nothing(timeout=0.1)  # (and the socket wasn't closed meanwhile)
        await database_sync_to_async(record)(org)
        assert await home.receive_json_from(timeout=5) == {"what": "work", "conversation": None}
        await home.disconnect()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_an_idle_websocket_still_hears_a_change_on_redis(org, redis_url):
    with override_settings(CHANNEL_LAYERS={"default": redis_channel_layer(redis_url)}):
        idle_then_hear(org)


@pytest.mark.django_db(transaction=True)
def test_an_idle_websocket_still_hears_a_change_on_the_sqlite_layer(org, settings):
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "roadstar.channel_layer.SQLiteChannelLayer" or (
        pytest.skip("the suite runs on Redis here (REDIS_URL): the Redis test covers it"))
    idle_then_hear(org)
