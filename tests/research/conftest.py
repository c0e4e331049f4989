"""The research tests run on recorded answers (tests/research/recorded/) through respx: nothing reaches the
internet, and the feeds' host names resolve through a table instead of DNS."""

from pathlib import Path

import pytest

from research import services
from tests.research.table_fakes import local_web  # noqa: F401  (the research tables' local web, a fixture)

RECORDED = Path(__file__).parent / "recorded"

# What the test host names resolve to: public addresses, and names that point inside the network.
ADDRESSES = {
    "news.example.com": ["93.184.216.34"],
    "wire.example.org": ["93.184.216.35"],
    "feeds.example.net": ["2606:2800:220:1:248:1893:25c8:1946"],
    "sneaky.example.com": ["10.0.0.8"],
    "rebind.example.com": ["93.184.216.36", "127.0.0.1"],
}


def recorded(name: str) -> bytes:
    return (RECORDED / name).read_bytes()


@pytest.fixture(autouse=True)
def names_without_dns(monkeypatch):
    def resolve(host, port):
        if host not in ADDRESSES:
            import socket

            raise socket.gaierror(f"{host}: no such name in the test table")
        return ADDRESSES[host]

    monkeypatch.setattr("core.web_addresses.resolver", resolve)


@pytest.fixture
def research_on(org):
    services.research_settings_set(org=org, filings=True, newsfeed=True)
    return org
