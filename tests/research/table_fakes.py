"""A local web for the research tables' tests: a SearXNG that answers from a table, a directory of 25 bakeries
and a page for each, served on 127.0.0.1 (read through the web group's allow-list for tests); and the scripted
model's answers for planning, finding rows and filling them, made from what the request shows."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from agents.runtime.model import ModelResponse, ModelUsage
from core import web_addresses as addresses


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


NAMES = [
    "Apple Crumb", "Barley House", "Crust and Co", "Dough Bros", "Ember Loaf", "Flour Tower", "Golden Rye",
    "Honey Knot", "Iron Oven", "Juniper Bakes", "Kettle Bread", "Lark Pastry", "Maple Hearth", "North Proof",
    "Oat and Ash", "Pine Street Bakery", "Quay Buns", "Rise Harbor", "Salt Crumb", "Tidewater Bread",
    "Upper Crust Harbor", "Vale Ovens", "Wheat Wharf", "Yeast Quarter", "Zest Bakehouse",
]
BAKERIES = [
    {"name": name, "slug": _slug(name), "founded": 1950 + i * 3, "delivers": "yes" if i % 2 == 0 else "no"}
    for i, name in enumerate(NAMES)
]
# One bakery's page is vague about its founding: the researcher is unsure, and the value waits for review.
VAGUE = "Honey Knot"


def bakery_page(bakery: dict) -> str:
    founded = (f"The family says the bakery was founded sometime around {bakery['founded']}."
               if bakery["name"] == VAGUE else f"{bakery['name']} was founded in {bakery['founded']}.")
    delivers = ("Delivery: we deliver across Harbor every morning." if bakery["delivers"] == "yes"
                else "Delivery: we don't deliver; collect from the shop.")
    return (f"<html><head><title>{bakery['name']} | Harbor bakeries</title></head><body><main><article>"
            f"<h1>{bakery['name']}</h1><p>{founded} It bakes sourdough, rye and pastries on the harbor front of "
            f"Harbor town.</p><p>{delivers}</p><p>Open Tuesday to Sunday, 7am to 3pm.</p></article></main></body>"
            "</html>")


def directory_page() -> str:
    items = "".join(f"<li>{b['name']}, a bakery in Harbor</li>" for b in BAKERIES)
    return (f"<html><head><title>Harbor bakeries directory</title></head><body><main><article><h1>Every bakery "
            f"in Harbor</h1><p>The town's bakeries, from the guild's list.</p><ul>{items}</ul></article></main>"
            "</body></html>")


class LocalWeb:
    """The directory, each bakery's page, and a SearXNG at /search: a query naming a bakery finds its page, any
    other finds the directory."""

    def __init__(self):
        self.searches: list[str] = []
        self.reads: list[str] = []
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urlsplit(self.path)
                if parts.path == "/search":
                    query = parse_qs(parts.query).get("q", [""])[0]
                    web.searches.append(query)
                    return self._send(json.dumps({"query": query, "results": web.results(query)}),
                                      "application/json")
                web.reads.append(parts.path)
                if parts.path == "/directory":
                    return self._send(directory_page())
                found = next((b for b in BAKERIES if parts.path == f"/bakery/{b['slug']}"), None)
                if found is None:
                    return self._send("no such page", status=404)
                return self._send(bakery_page(found))

            def _send(self, body: str, content_type: str = "text/html; charset=utf-8", status: int = 200):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def results(self, query: str) -> list[dict]:
        named = [b for b in BAKERIES if b["name"].lower() in query.lower()]
        if named:
            return [{"url": self.url(f"/bakery/{b['slug']}"), "title": f"{b['name']} | Harbor bakeries",
                     "content": f"{b['name']}, a bakery in Harbor."} for b in named]
        return [{"url": self.url("/directory"), "title": "Harbor bakeries directory",
                 "content": "Every bakery in Harbor, from the guild's list."}]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def local_web(settings):
    web = LocalWeb()
    settings.SEARXNG_URL = web.url("")
    settings.BRAVE_SEARCH_API_KEY = None
    settings.WEB_SEARCH_PROVIDER = None
    with addresses.allowing_for_tests("127.0.0.1"):
        yield web
    web.close()


# --- the scripted model's answers ----------------------------------------------------------------------------------

PLAN = {
    "name": "Harbor bakeries",
    "row": "a bakery in Harbor",
    "rule": "a bakery with a shop in Harbor town",
    "queries": ["bakeries in Harbor"],
    "columns": [
        {"name": "name", "label": "Bakery", "type": "text", "unit": None, "options": None,
         "instructions": "The bakery's name as its sign says.", "identifies": True},
        {"name": "founded", "label": "Founded", "type": "number", "unit": "year", "options": None,
         "instructions": "The year it was founded, from its own page.", "identifies": False},
        {"name": "delivers", "label": "Delivers", "type": "yes_no", "unit": None, "options": None,
         "instructions": "Whether it delivers, from its own page.", "identifies": False},
    ],
}
OUTPUT_TOKENS = 120


def answer(payload: dict) -> ModelResponse:
    return ModelResponse(text=json.dumps(payload), usage=ModelUsage(output_tokens=OUTPUT_TOKENS))


def plan_answer(request=None) -> ModelResponse:
    return answer(PLAN)


def rows_answer(request) -> ModelResponse:
    """Every bakery the directory in the search results lists."""
    shown = request["messages"][-1]["content"]
    rows = [{"values": [{"column": "name", "value": b["name"]}], "result": 1} for b in BAKERIES
            if "directory" in shown]
    return answer({"rows": rows})


def _sources(request) -> list[str]:
    text = request["messages"][-1]["content"].split("Sources:", 1)[1]
    return [part for part in re.split(r"\n\n(?=\[\d+\] )", "\n\n" + text.strip()) if part.strip()]


def row_of(request) -> str:
    return re.search(r"Row: name (.+)", request["messages"][-1]["content"]).group(1).strip()


def cells_answer(request) -> ModelResponse:
    """Fill founded and delivers from whichever sources say so, quoting them word for word."""
    name = row_of(request)
    bakery = next(b for b in BAKERIES if b["name"] == name)
    sources = _sources(request)
    founded_quote = f"founded in {bakery['founded']}"
    delivers_quote = "we deliver across Harbor" if bakery["delivers"] == "yes" else "we don't deliver"
    cells = []
    founded_at = [i for i, s in enumerate(sources, start=1) if founded_quote in s]
    if founded_at:
        cells.append({"column": "founded", "value": str(bakery["founded"]), "status": "filled",
                      "quotes": [{"source": i, "text": founded_quote} for i in founded_at]})
    elif any(f"sometime around {bakery['founded']}" in s for s in sources):
        at = next(i for i, s in enumerate(sources, start=1) if f"sometime around {bakery['founded']}" in s)
        cells.append({"column": "founded", "value": str(bakery["founded"]), "status": "unsure",
                      "quotes": [{"source": at, "text": f"sometime around {bakery['founded']}"}]})
    else:
        cells.append({"column": "founded", "value": None, "status": "not_disclosed", "quotes": []})
    delivers_at = [i for i, s in enumerate(sources, start=1) if delivers_quote in s]
    cells.append({"column": "delivers", "value": bakery["delivers"], "status": "filled" if delivers_at else "unsure",
                  "quotes": [{"source": i, "text": delivers_quote} for i in delivers_at]})
    return answer({"cells": cells})


def script_for_rows(model, count: int) -> None:
    for _ in range(count):
        model.add(cells_answer)
