"""The live Home: services notify after commit, the websocket carries it to the owner's own workspace only, the
page fetches its fresh part, and the embedded default's SQLite channel layer crosses processes."""

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse

from agents import services as agent_services
from agents.models import Conversation, Work
from agents.runtime.turn import answer_work
from core import live, services
from core.actors import Actor
from core.models import Change
from roadstar.channel_layer import SQLiteChannelLayer, into_wal

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = (b"origin", b"http://testserver")


def sign_in_cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies[django_settings.SESSION_COOKIE_NAME].value}".encode()


def socket_for(user=None, *, origin=ORIGIN) -> WebsocketCommunicator:
    from roadstar.asgi import application

    headers = [origin] if origin else []
    if user is not None:
        headers.append((b"cookie", sign_in_cookie(user)))
    return WebsocketCommunicator(application, "/ws/home/", headers=headers)


def record(org, sentence="added Dana Whitfield to Contacts"):
    return services.change_record(
        org=org, actor=Actor(kind="agent", id="a1", name="Client desk"), tool="contacts.create", kind="makes",
        sentence=sentence, listing=Change.Listing.HOME,
    )


def run(scenario):
    """Run an async scenario from a sync test (the suite has no async test runner)."""
    async_to_sync(scenario)()


# --- the websocket ------------------------------------------------------------------------------------------

live_db = pytest.mark.django_db(transaction=True)


@live_db
def test_the_owners_socket_hears_of_a_change_once_it_commits(org):
    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        await database_sync_to_async(record)(org)
        assert await home.receive_json_from(timeout=2) == {"what": "work", "conversation": None}
        await home.disconnect()

    run(scenario)


@live_db
def test_nothing_is_sent_while_the_change_is_not_committed(org):
    def record_and_wait():
        with transaction.atomic():
            record(org)
            return async_to_sync(home.receive_nothing)(timeout=0.5)

    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        assert await database_sync_to_async(record_and_wait)()  # nothing yet, inside the transaction
        assert (await home.receive_json_from(timeout=2))["what"] == "work"  # then, after the commit
        await home.disconnect()

    run(scenario)


@live_db
def test_a_rolled_back_change_sends_nothing(org):
    def record_then_roll_back():
        try:
            with transaction.atomic():
                record(org)
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass

    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        await database_sync_to_async(record_then_roll_back)()
        assert await home.receive_nothing(timeout=0.5)
        await home.disconnect()

    run(scenario)


@live_db
def test_an_owner_of_another_workspace_never_hears_of_it(org, other_org):
    mine, theirs = socket_for(org.owner), socket_for(other_org.owner)

    async def scenario():
        assert (await mine.connect(timeout=5))[0] and (await theirs.connect(timeout=5))[0]
        await database_sync_to_async(record)(org)
        assert (await mine.receive_json_from(timeout=2))["what"] == "work"
        assert await theirs.receive_nothing(timeout=0.5)
        await mine.disconnect()
        await theirs.disconnect()

    run(scenario)


@live_db
def test_an_anonymous_socket_is_refused(db):
    anonymous = socket_for(None)

    async def scenario():
        connected, code = await anonymous.connect(timeout=5)
        assert (connected, code) == (False, 4401)

    run(scenario)


@live_db
def test_a_sign_in_without_a_workspace_is_refused(db):
    user = get_user_model().objects.create_user("nobody", password="x")

    nobody = socket_for(user)

    async def scenario():
        connected, code = await nobody.connect(timeout=5)
        assert (connected, code) == (False, 4403)

    run(scenario)


@live_db
def test_a_socket_opened_from_another_site_is_refused(org):
    elsewhere = socket_for(org.owner, origin=(b"origin", b"https://evil.example"))

    async def scenario():
        connected, _ = await elsewhere.connect(timeout=5)
        assert not connected

    run(scenario)


@live_db
def test_a_message_in_a_chat_names_its_conversation(org, agent):
    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        message = await database_sync_to_async(agent_services.owner_message_send)(org=org, agent=agent, text="Hi")
        assert await home.receive_json_from(timeout=2) == {"what": "chat", "conversation": str(message.conversation_id)}
        await home.disconnect()

    run(scenario)


@live_db
def test_the_socket_leaves_the_group_when_it_closes(org):
    layer = get_channel_layer()

    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        await home.disconnect()

    run(scenario)
    assert layer.group_send_blocking(live.group_name(org.id), {"type": "live.update", "what": "work"}) == 0


@live_db
def test_a_ping_is_answered(org):
    home = socket_for(org.owner)

    async def scenario():
        assert (await home.connect(timeout=5))[0]
        await home.send_json_to({"ping": True})
        assert await home.receive_json_from(timeout=2) == {"pong": True}
        await home.disconnect()

    run(scenario)


def redis_url() -> str | None:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
    host, port = "127.0.0.1", 6379
    if "REDIS_URL" in os.environ:
        from urllib.parse import urlparse

        parsed = urlparse(url)
        host, port = parsed.hostname or host, parsed.port or port
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return url
    except OSError:
        return None


@live_db
def test_with_redis_the_owners_socket_hears_of_a_change_too(org, settings):
    url = redis_url()
    if url is None:
        pytest.skip("no Redis reachable (REDIS_URL, or 127.0.0.1:6379): the channels_redis path is not exercised")
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [url]}}
    }

    mine, theirs = socket_for(org.owner), socket_for(None)

    async def scenario():
        assert (await mine.connect(timeout=5))[0]
        assert not (await theirs.connect(timeout=5))[0]
        await database_sync_to_async(record)(org)
        assert (await mine.receive_json_from(timeout=2))["what"] == "work"
        await mine.disconnect()

    run(scenario)


# --- who notifies -------------------------------------------------------------------------------------------


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr(live, "send_now", lambda group, message: calls.append((group, message["what"])))
    return calls


def test_notify_waits_for_the_commit(org, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        record(org)
    assert sent == [] and len(callbacks) == 1
    callbacks[0]()
    assert sent == [(f"org.{org.id}", "work")]


def test_notify_refuses_what_no_page_listens_for(org):
    with pytest.raises(ValueError):
        live.notify(org.id, "everything")


def test_undo_notifies_home(org, sent, django_capture_on_commit_callbacks):
    from core.context import ToolContext
    from records.models import Contact
    from tests.factories import ContactFactory
    from tools.pipeline import use_tool

    org.check_enabled = False
    org.save(update_fields=["check_enabled"])
    dana = ContactFactory(organization=org, name="Dana Whitfield")
    ctx = ToolContext(org=org, actor=Actor(kind="agent", id="a1", name="Client desk"), conversation_id="t")
    use_tool(ctx, "contacts.context", {"contactId": str(dana.id), "text": "Prefers calls", "why": "She said so."})
    change = Change.objects.get(organization=org, tool="contacts.context")
    with django_capture_on_commit_callbacks(execute=True):
        services.change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    assert sent == [(f"org.{org.id}", "work")] and Contact.objects.get(id=dana.id).context != "Prefers calls"


def test_a_card_put_up_and_dealt_with_notifies_home(org, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        card = services.card_open(org=org, kind="connect", subject="app:gmail", title="Connect Gmail")
        services.card_open(org=org, kind="connect", subject="app:gmail", title="Connect Gmail")  # the same: no news
        services.card_resolve(org=org, card_id=card.id)
    assert sent == [(f"org.{org.id}", "cards"), (f"org.{org.id}", "cards")]


def test_answered_work_notifies_home(org, agent, sent, django_capture_on_commit_callbacks):
    chat = agent_services.chat_for(agent=agent)
    work = agent_services.work_open(org=org, agent=agent, conversation=chat, task="Find Dana", requester=None)
    work = Work.objects.select_related("conversation", "agent", "requester").get(id=work.id)
    with django_capture_on_commit_callbacks(execute=True):
        assert answer_work(work, "Found her.")
    assert (f"org.{org.id}", "work") in sent


def test_a_failed_delivery_never_fails_the_service(org, monkeypatch, caplog):
    class Broken:
        def group_send_blocking(self, group, message):
            raise OSError("disk full")

    monkeypatch.setattr("channels.layers.get_channel_layer", lambda *a: Broken())
    live.send_now("org.x", {"type": live.EVENT_TYPE, "what": "work"})
    assert "not delivered" in caplog.text


# --- the page's live part ------------------------------------------------------------------------------------


def test_home_live_is_the_part_of_home_that_changes(client, org):
    client.force_login(org.owner)
    record(org, "added Rosa Ortiz to Contacts")
    html = client.get(reverse("home_live")).content.decode()
    assert "added Rosa Ortiz to Contacts" in html and 'data-live-part="work"' in html and "<html" not in html


def test_home_live_keeps_the_buttons_pointing_at_home(client, org):
    client.force_login(org.owner)
    services.card_open(org=org, kind="connect", subject="app:gmail", title="Connect Gmail")
    html = client.get(reverse("home_live"), {"before": "2026-11-10T10:00:00Z"}).content.decode()
    assert 'name="next" value="/?before=2026-11-10T10%3A00%3A00Z"' in html


def test_home_live_sends_a_visitor_to_sign_in(client, db):
    response = client.get(reverse("home_live"))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_home_page_opens_the_socket_and_names_its_live_part(client, org):
    client.force_login(org.owner)
    html = client.get("/").content.decode()
    assert 'data-live-src="/home/live/"' in html and "roadstar/live.js" in html


def test_live_js_opens_the_home_socket():
    script = (ROOT / "static" / "roadstar" / "live.js").read_text()
    assert '"/ws/home/"' in script


# --- the SQLite channel layer (the embedded default) --------------------------------------------------------


@pytest.fixture
def layer(tmp_path):
    return SQLiteChannelLayer(path=tmp_path / "channels.sqlite3", poll_interval=0.01)


def test_a_group_message_reaches_each_member_and_only_them(layer):
    async def scenario():
        a, b, c = [await layer.new_channel() for _ in range(3)]
        await layer.group_add("org.one", a)
        await layer.group_add("org.one", b)
        await layer.group_add("org.two", c)
        await layer.group_send("org.one", {"type": "live.update", "what": "work"})
        assert await asyncio.wait_for(layer.receive(a), 2) == {"type": "live.update", "what": "work"}
        assert await asyncio.wait_for(layer.receive(b), 2) == {"type": "live.update", "what": "work"}
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(c), 0.2)

    run(scenario)


def test_a_channel_that_left_the_group_gets_nothing(layer):
    async def scenario():
        a = await layer.new_channel()
        await layer.group_add("org.one", a)
        await layer.group_discard("org.one", a)
        await layer.group_send("org.one", {"type": "x"})
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(a), 0.2)

    run(scenario)


def test_messages_to_one_channel_arrive_in_order(layer):
    async def scenario():
        await layer.send("worker.tasks", {"type": "t", "n": 1})
        await layer.send("worker.tasks", {"type": "t", "n": 2, "raw": b"\x00\xff"})
        assert await asyncio.wait_for(layer.receive("worker.tasks"), 2) == {"type": "t", "n": 1}
        assert await asyncio.wait_for(layer.receive("worker.tasks"), 2) == {"type": "t", "n": 2, "raw": b"\x00\xff"}

    run(scenario)


def test_a_full_channel_refuses_more(tmp_path):
    small = SQLiteChannelLayer(path=tmp_path / "c.sqlite3", capacity=2)

    async def scenario():
        await small.send("worker.tasks", {"type": "t"})
        await small.send("worker.tasks", {"type": "t"})
        with pytest.raises(ChannelFull):
            await small.send("worker.tasks", {"type": "t"})

    run(scenario)


def test_a_channel_that_let_a_message_expire_unread_leaves_its_groups(tmp_path):
    short = SQLiteChannelLayer(path=tmp_path / "c.sqlite3", expiry=0.05)

    async def scenario():
        gone = await short.new_channel()
        await short.group_add("org.one", gone)
        await short.group_send("org.one", {"type": "x"})  # never read: its process died
        await asyncio.sleep(0.1)
        await short.clean_expired()

    run(scenario)
    assert short.group_send_blocking("org.one", {"type": "x"}) == 0


def test_flush_empties_the_layer(layer):
    async def scenario():
        a = await layer.new_channel()
        await layer.group_add("org.one", a)
        await layer.flush()

    run(scenario)
    assert layer.group_send_blocking("org.one", {"type": "x"}) == 0


def test_a_file_switched_to_wal_by_another_process_at_the_same_moment_is_tried_again():
    """Two processes putting one file in WAL mode at once (web and worker at the first `make run`) deadlock, and
    SQLite answers one of them "database is locked" at once, without waiting out the busy timeout (seen about once
    in 40 races of four on an existing file): that one tries again, and any other error is raised."""
    class Refused:
        def __init__(self, answers):
            self.answers, self.asked = list(answers), []

        def execute(self, sql):
            self.asked.append(sql)
            answer = self.answers.pop(0)
            if answer is not None:
                raise answer

    twice_locked = Refused([sqlite3.OperationalError("database is locked")] * 2 + [None])
    into_wal(twice_locked)
    assert twice_locked.asked == ["PRAGMA journal_mode=WAL"] * 3

    broken = Refused([sqlite3.OperationalError("disk I/O error")])
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        into_wal(broken)
    always_locked = Refused([sqlite3.OperationalError("database is locked")] * 3)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        into_wal(always_locked, tries=3)


def test_the_layer_crosses_processes(tmp_path):
    """What the embedded default rests on: a worker process's notify reaches a socket served by another."""
    path = tmp_path / "channels.sqlite3"
    here = SQLiteChannelLayer(path=path, poll_interval=0.01)
    group = "org.8c7f3a8e-0000-4000-8000-000000000001"

    async def scenario():
        channel = await here.new_channel()
        await here.group_add(group, channel)
        worker = textwrap.dedent(f"""
            import django
            django.setup()
            from core import live
            live.send_now({group!r}, {{"type": "live.update", "what": "work", "conversation": None}})
        """)
        env = {**os.environ, "CHANNELS_SQLITE_PATH": str(path), "DJANGO_SETTINGS_MODULE": "roadstar.settings.test"}
        env.pop("REDIS_URL", None)
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", worker, cwd=str(ROOT), env=env)
        assert await proc.wait() == 0
        message = await asyncio.wait_for(here.receive(channel), 2)
        assert message == {"type": "live.update", "what": "work", "conversation": None}
        assert time.monotonic() - started < 30

    run(scenario)


def test_settings_use_the_sqlite_layer_without_redis():
    if os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is set: settings choose channels_redis")
    backend = django_settings.CHANNEL_LAYERS["default"]["BACKEND"]
    assert backend == "roadstar.channel_layer.SQLiteChannelLayer"


def test_settings_choose_redis_when_redis_url_is_set():
    code = "from django.conf import settings; print(settings.CHANNEL_LAYERS['default']['BACKEND'])"
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:6379/0", "DJANGO_SETTINGS_MODULE": "roadstar.settings.test"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "channels_redis.core.RedisChannelLayer"


def test_the_conversation_id_in_a_notify_is_text(org, agent, sent, django_capture_on_commit_callbacks, monkeypatch):
    seen = []
    monkeypatch.setattr(live, "send_now", lambda group, message: seen.append(json.dumps(message)))
    with django_capture_on_commit_callbacks(execute=True):
        agent_services.message_append(conversation=agent_services.chat_for(agent=agent), role="owner", text="Hi")
    chat = Conversation.objects.get(agent=agent, kind="chat")
    assert json.loads(seen[0])["conversation"] == str(chat.id)
