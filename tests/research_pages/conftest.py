"""Research pages run on the scripted model and a local web: a fake search provider whose results are pages of a
site served on 127.0.0.1 (tests/integrations/web_fakes.py), read through the web group's real fetch and checks."""

import json

import pytest

from agents.runtime.model import ModelResponse, ScriptedModel, set_model
from integrations.web.providers import Hit, SearchProvider
from research import page_services
from research import services as research_services
from research.models import ResearchPage
from tests.factories import ProjectFactory
from tests.integrations.web_fakes import dns, site, web_on  # noqa: F401

ROASTERY = """<!doctype html><html><head><title>UK coffee shop market 2025 | Allegra</title></head><body><main>
<h1>UK coffee shop market</h1>
<p>The UK branded coffee shop market reached 9,600 outlets in 2025, up from 9,300 in 2024.</p>
<p>Sales across all coffee shops were £5.8 billion in 2025.</p></main></body></html>"""
STATS = """<!doctype html><html><head><title>Coffee shops: the statistics</title></head><body><main>
<h1>Coffee shops in numbers</h1>
<p>There were 9,300 branded coffee shops in 2024 and 8,900 in 2023.</p>
<p>Independent shops make up about half of all outlets.</p></main></body></html>"""


class FakeSearch(SearchProvider):
    label = "the fake search"

    def __init__(self, hits):
        self.hits = hits
        self.queries = []

    def search(self, query, *, count):
        self.queries.append(query)
        return list(self.hits)[:count]


@pytest.fixture(autouse=True)
def search_set_up(monkeypatch):
    """A web search is set up (one that finds nothing, unless a test takes `web`): pages.request refuses without one
    (test_tools.py has that case)."""
    monkeypatch.setattr("integrations.web.services.configured_provider", lambda: FakeSearch([]))


@pytest.fixture
def pages_on(org):
    research_services.research_settings_set(org=org, pages=True)
    return org


@pytest.fixture
def web(site, monkeypatch):  # noqa: F811
    """The local web: two pages with the figures, one address that answers 404, and a search that finds them."""
    site.page("/market", ROASTERY)
    site.page("/stats", STATS)
    search = FakeSearch([
        Hit(title="UK coffee shop market 2025", url=site.url("/market"), published="2025-06-02",
            snippets=["9,600 outlets"]),
        Hit(title="Coffee shops: the statistics", url=site.url("/stats"), published=None, snippets=["9,300"]),
        Hit(title="Gone", url=site.url("/gone"), published=None, snippets=[]),
    ])
    monkeypatch.setattr("integrations.web.services.configured_provider", lambda: search)
    search.site = site
    return search


@pytest.fixture
def model():
    scripted = ScriptedModel()
    set_model(scripted)
    yield scripted
    set_model(None)


PLAN = {"objective": "How many coffee shops the UK has, and how that changed",
        "queries": ["uk coffee shop outlets 2025", "uk coffee shop market size"]}


def draft(extra_row: bool = True) -> dict:
    """What the writer's model answers: figures naming s1 and s2, and (extra_row) one row naming no source."""
    rows = [{"x": "2023", "values": [8900], "sourceDocumentIds": ["s2"]},
            {"x": "2024", "values": [9300], "sourceDocumentIds": ["s1", "s2"]},
            {"x": "2025", "values": [9600], "sourceDocumentIds": ["s1"]}]
    if extra_row:
        rows.append({"x": "2026", "values": [9900], "sourceDocumentIds": ["s9"]})
    return {
        "title": "How many coffee shops does the UK have?",
        "artifact": {
            "version": 1,
            "synopsisMarkdown": "About 9,600 branded coffee shops in 2025 [1], up from 9,300 in 2024 [2].",
            "bodyMdx": "## Outlets\n\nThe market reached 9,600 outlets in 2025 [1], from 8,900 in 2023 [2]. "
                       "Sales were £5.8 billion [1]. A figure with no source [7].",
            "charts": [{"id": "c1", "title": "Branded coffee shops", "type": "bar", "description": None,
                        "noteMarkdown": None, "xLabel": "Year", "yLabel": "Outlets",
                        "series": [{"key": "outlets", "label": "Outlets", "unit": None}], "rows": rows}],
            "dataTables": [{"id": "t1", "title": "Outlets by year", "columns": ["Year", "Outlets"],
                            "rows": [{"cells": ["2025", "9,600"], "sourceDocumentIds": ["s1"]},
                                     {"cells": ["2022", "8,000"], "sourceDocumentIds": []}]}],
            "timelines": [{"id": "primary_timeline", "items": [
                {"id": "e1", "title": "9,600 outlets", "date": "2025", "datePrecision": "year",
                 "bodyMarkdown": "Outlets passed 9,600.", "analysisMarkdown": "Growth slowed.",
                 "sourceDocumentIds": ["s1"]}]}],
            "counterViewMarkdown": "Independents make up about half of outlets, so branded counts miss much [2].",
        },
    }


def writer_script(scripted, *, extra_row: bool = True):
    scripted.add(ModelResponse(text=json.dumps(PLAN)), ModelResponse(text=json.dumps(draft(extra_row))))
    return scripted


ARTIFACT = {
    "version": 1,
    "synopsisMarkdown": "About 9,600 branded coffee shops in 2025 [1].",
    "bodyMdx": "The market reached 9,600 outlets in 2025 [1]. Sales were £5.8 billion [1]. Growth was 3% [2].",
    "charts": [], "timelines": [],
    "dataTables": [{"id": "t1", "title": "Outlets", "columns": ["Year", "Outlets"],
                    "rows": [{"cells": ["2024", "9,300"], "sourceDocumentIds": []}]}],
    "counterViewMarkdown": "Independents are half the market [2].",
}


@pytest.fixture
def project(org):
    return ProjectFactory(organization=org, name="Market research")


@pytest.fixture
def ready_page(pages_on, project):
    """A page the writer finished (made through the services as the writer does, without a model)."""

    def make(title="How many coffee shops does the UK have?", org=None, proj=None):
        page = page_services.page_request(org=org or pages_on, project=proj or project, question=title)
        claimed = page_services.page_claim(page_id=page.id)
        one = page_services.page_source_add(page=claimed, url="https://allegra.test/market", title="Market",
                                            published="2025-06-02", text="9,600 outlets")
        page_services.page_source_add(page=claimed, url="https://stats.test/", title="Stats", published=None,
                                      text="9,300")
        artifact = {**ARTIFACT, "dataTables": [{**ARTIFACT["dataTables"][0], "rows": [
            {"cells": ["2024", "9,300"], "sourceDocumentIds": [str(one.id)]}]}]}
        page_services.page_complete(page=claimed, title=title, artifact=artifact)
        return ResearchPage.objects.get(id=page.id)

    return make
