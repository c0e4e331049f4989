"""Connections built the way the OAuth callbacks build them: org -> google / quickbooks / local connection."""

import datetime
import socket

import pytest
from django.utils import timezone

from core.actors import Actor
from integrations import catalog
from integrations.services import connection_create_local, connection_save_oauth
from tests.integrations.fakes import GOOGLE_SETTINGS, QUICKBOOKS_SETTINGS
from tests.integrations.probe import probe_tool  # noqa: F401  (a fixture for this folder's tests)
from tests.integrations.web_fakes import dns, site, web_on  # noqa: F401  (web.read's fake site, DNS and provider)

G = "https://www.googleapis.com/auth/"
GOOGLE_READ = ["openid", G + "userinfo.email", G + "gmail.readonly", G + "drive.readonly", G + "calendar.readonly"]


@pytest.fixture(autouse=True)
def no_internet(monkeypatch):
    """Every exchange with Google and Intuit is answered in the test: a connection out is a bug in the test. This
    machine's own address stays open, for servers the tests run themselves (tests/integrations/smtp_server.py)."""
    real_connect = socket.socket.connect

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in ("127.0.0.1", "::1"):
            raise OSError(f"a test tried to reach {address}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def app_settings(settings):
    for name, value in {**GOOGLE_SETTINGS, **QUICKBOOKS_SETTINGS}.items():
        setattr(settings, name, value)
    return settings


def in_an_hour() -> str:
    return (timezone.now() + datetime.timedelta(hours=1)).isoformat()


def an_hour_ago() -> str:
    return (timezone.now() - datetime.timedelta(hours=1)).isoformat()


def save_google(org, *, account="sam@fernhill.test", scopes=GOOGLE_READ, expiry=None, refresh_token="g-refresh-1"):
    connection, _ = connection_save_oauth(
        org=org, actor=Actor.for_user(org.owner), app="google", account=account, scopes=list(scopes),
        tokens={"access_token": "g-access-1", "refresh_token": refresh_token, "expiry": expiry or in_an_hour()},
    )
    return connection


def save_quickbooks(org, *, expiry=None, realm_id="9130357", refresh_token="qb-refresh-1"):
    connection, _ = connection_save_oauth(
        org=org, actor=Actor.for_user(org.owner), app="quickbooks", account="Fernhill Studio LLC",
        scopes=[catalog.QUICKBOOKS_ACCOUNTING], realm_id=realm_id,
        tokens={"access_token": "qb-access-1", "refresh_token": refresh_token, "expiry": expiry or in_an_hour()},
    )
    return connection


@pytest.fixture
def google(org, app_settings):
    return save_google(org)


@pytest.fixture
def quickbooks(org, app_settings):
    return save_quickbooks(org)


@pytest.fixture
def local(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "files", "calendar", "books"])
