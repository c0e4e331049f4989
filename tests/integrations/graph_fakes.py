"""A recorded Microsoft Graph and identity platform: each request the code makes is answered from the fixture JSON in
graph_recorded/ (written from Graph's documented response shapes), matched by method and address, in order.

Nothing reaches the network: a request with no recorded answer fails the test, naming what was asked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import requests

HERE = Path(__file__).parent / "graph_recorded"
GRAPH = "https://graph.microsoft.com/v1.0"
DRIVE = "b!8dL3fKq0Ukmi7pYdGzHgPj0qsZ4Q4M9Ahm1cjB0NWtRmWvYQYtHNQqGgP5T0aT7r"
MS_SETTINGS = {"MICROSOFT_CLIENT_ID": "6731de76-14a6-49ae-97bc-6eba6914391e", "MICROSOFT_CLIENT_SECRET": "ms-secret",
               "MICROSOFT_TENANT": "common"}


def recorded(name: str) -> dict:
    return json.loads((HERE / f"{name}.json").read_text())


def answer(status: int, body: dict | bytes | str = b"", headers: dict | None = None,
           url: str = GRAPH) -> requests.Response:
    r = requests.Response()
    r.url, r.status_code = url, status
    if isinstance(body, dict):
        r._content = json.dumps(body).encode()
        r.headers.update({"Content-Type": "application/json"})
    else:
        r._content = body.encode() if isinstance(body, str) else body
        r.headers.update({"Content-Type": "application/octet-stream"})
    r.headers.update(headers or {})
    return r


class RecordedGraph:
    """A requests.Session-like: `.on("GET", r"/drives/.*/children", "children")` records an answer (a fixture's name,
    a dict, bytes, or a Response); each is used once, in order, unless `repeat=True`: a standing answer, given
    after the one-off answers run out, the latest standing one first (a file's facts after it changed).
    `.calls` lists what was asked."""

    def __init__(self):
        self.routes: list[dict] = []
        self.calls: list[dict] = []

    def on(self, method: str, pattern: str, body, *, status: int = 200, repeat: bool = False, headers=None):
        if isinstance(body, str) and not body.startswith(("<", " ")) and (HERE / f"{body}.json").exists():
            body = recorded(body)
        self.routes.append({"method": method, "pattern": re.compile(pattern), "body": body, "status": status,
                            "repeat": repeat, "headers": headers, "used": False})
        return self

    def request(self, method, url, params=None, json=None, data=None, headers=None, timeout=None, **kwargs):
        self.calls.append({"method": method, "url": url, "params": dict(params or {}), "json": json, "data": data,
                           "headers": dict(headers or {})})
        once = [r for r in self.routes if not r["repeat"] and not r["used"]]
        standing = [r for r in reversed(self.routes) if r["repeat"]]  # the latest standing answer wins
        for route in once + standing:
            if route["method"] == method and route["pattern"].search(url):
                route["used"] = True
                body = route["body"]
                if isinstance(body, requests.Response):
                    return body
                return answer(route["status"], body, route["headers"], url)
        raise AssertionError(f"no recorded Graph answer for {method} {url} {params or ''}")

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)

    def asked(self, method: str, pattern: str) -> list[dict]:
        return [c for c in self.calls if c["method"] == method and re.search(pattern, c["url"])]
