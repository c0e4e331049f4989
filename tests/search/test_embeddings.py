"""Related results from embeddings (search/embeddings.py), against a fake OpenAI-compatible /v1/embeddings served by
httpx.MockTransport through the real `openai` SDK: deterministic vectors, where words of one meaning (cake, bread,
pastry) share a direction. Absent without an endpoint, never an error; embedded by the worker in batches, resumably,
with no transaction open across the call."""

import datetime
import json
import re

import httpx
import openai
import pytest

from core.network import transaction_open
from search import embeddings, index, selectors
from search.models import SearchEmbedding
from tests.factories import OrganizationFactory
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

URL = "http://embeddings.test/v1"
MEANINGS = [
    {"cake", "bread", "pastry", "bakery", "croissant"},
    {"logo", "flyer", "signage", "print", "poster"},
    {"invoice", "payment", "bill", "owed", "overdue"},
    {"dentist", "dental", "teeth", "clinic"},
]
DAY = datetime.datetime(2026, 10, 1, 9, 0, tzinfo=datetime.UTC)


def vector(text: str) -> list[float]:
    words = re.findall(r"\w+", text.lower())
    # Centred, so a meaning absent is below zero: the sign bits then say something, as a real model's do.
    return [sum(w in meaning for w in words) - 0.5 for meaning in MEANINGS] + [0.05]


class FakeEndpoint:
    """An embeddings server: records each call's texts; `fail` answers the next so many calls with this status;
    `refuse` answers 400 to any call holding that word."""

    def __init__(self):
        self.calls: list[list[str]] = []
        self.fail: list[int] = []
        self.refuse: str | None = None
        self.open_transactions = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/embeddings"
        body = json.loads(request.content)
        self.open_transactions += transaction_open()
        if self.fail:
            return httpx.Response(self.fail.pop(0), json={"error": {"message": "busy", "type": "server_error"}})
        texts = body["input"]
        if self.refuse and any(self.refuse in t for t in texts):
            return httpx.Response(400, json={"error": {"message": "input too long", "type": "invalid_request"}})
        self.calls.append(texts)
        return httpx.Response(200, json={
            "object": "list", "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1},
            "data": [{"object": "embedding", "index": n, "embedding": vector(t)} for n, t in enumerate(texts)],
        })


@pytest.fixture
def endpoint(settings, monkeypatch):
    settings.ROADSTAR_EMBEDDING_URL = URL
    settings.ROADSTAR_EMBEDDING_MODEL = "fake-embed"
    fake = FakeEndpoint()
    http = httpx.Client(transport=httpx.MockTransport(fake))
    monkeypatch.setattr(embeddings, "make_client", lambda: openai.OpenAI(
        base_url=URL, api_key="k", max_retries=0, http_client=http))
    yield fake
    http.close()


def entry(key, title, body, *, days=0, type="doc", thread=""):
    return index.Entry(key=key, type=type, source="workspace", title=title, body=body,
                       date=DAY - datetime.timedelta(days=days), thread=thread)


@pytest.fixture
def copy(org):
    index.put(org, [
        entry("doc:1", "Croissant order", "Two dozen for Friday", days=1),
        entry("doc:2", "Bread for the cafe", "Sourdough, weekly", days=2),
        entry("doc:3", "Poster proofs", "The flyer and signage drafts", days=3),
        entry("doc:4", "March invoice", "Payment overdue since April", days=4),
        entry("doc:5", "Cake tasting notes", "The pastry chef liked the lemon", days=5, type="sheet"),
        entry("mail:k:m:1", "Bakery visit", "Bread samples", days=6, type="email", thread="mail:k:t:1"),
        entry("mail:k:m:2", "Re: Bakery visit", "More bread", days=7, type="email", thread="mail:k:t:1"),
    ])
    return org


def search(org, **filters):
    return selectors.search(org=org, filters=selectors.Filters(**filters))


def test_without_an_endpoint_there_are_no_related_results_and_nothing_is_embedded(copy, settings, monkeypatch):
    settings.ROADSTAR_EMBEDDING_URL = None
    monkeypatch.setattr(embeddings, "make_client", lambda: pytest.fail("no endpoint is configured"))
    assert embeddings.embed_pending() == 0
    out = search(copy, query="bakery")
    assert "related" not in out and not any(r.get("related") for r in out["results"])
    assert SearchEmbedding.objects.count() == 0


def test_the_worker_embeds_in_batches_with_no_transaction_open(copy, endpoint):
    assert embeddings.embed_pending(batch=3) == 7
    assert [len(c) for c in endpoint.calls] == [3, 3, 1]
    assert endpoint.open_transactions == 0
    assert embeddings.embed_pending(batch=3) == 0 and len(endpoint.calls) == 3  # nothing left to do
    assert SearchEmbedding.objects.filter(organization=copy).count() == 7


def test_related_results_are_by_meaning_after_the_words(copy, endpoint):
    embeddings.embed_pending()
    out = search(copy, query="pastry")
    words = [r["id"] for r in out["results"] if not r.get("related")]
    related = [r for r in out["results"] if r.get("related")]
    assert words == ["doc:5"]  # "pastry" is written in the tasting notes only
    assert out["total"] == 1 and out["related"] == len(related) == 3
    # The other bakery things by meaning, one per thread (the bakery thread once), none of them the words' match.
    assert sorted(r.get("thread", r["id"]) for r in related) == ["doc:1", "doc:2", "mail:k:t:1"]
    assert "poster" not in json.dumps(related).lower() and "invoice" not in json.dumps(related).lower()
    # The search's other filters hold for them too.
    out = search(copy, query="pastry", types=["email"])
    assert [r["thread"] for r in out["results"]] == ["mail:k:t:1"] and out["total"] == 0


def test_a_next_page_and_a_search_without_words_have_no_related_results(copy, endpoint):
    embeddings.embed_pending()
    first = search(copy, query="bread", limit=1)
    assert first["next"] and first.get("related")
    second = search(copy, query="bread", limit=1, cursor=first["next"])
    assert "related" not in second and not any(r.get("related") for r in second["results"])
    assert "related" not in search(copy, types=["doc"])


def test_another_workspaces_items_are_never_related(copy, endpoint):
    other = OrganizationFactory()
    index.put(other, [entry("doc:9", "Patisserie price list", "croissant cake bread pastry bakery")])
    embeddings.embed_pending()
    out = search(copy, query="pastry")
    assert "doc:9" not in {r["id"] for r in out["results"]}


def test_an_endpoint_down_stops_the_worker_and_the_next_run_goes_on(copy, endpoint):
    endpoint.fail = [503]
    assert embeddings.embed_pending(batch=3) == 0
    assert SearchEmbedding.objects.count() == 0
    assert embeddings.embed_pending(batch=3) == 7
    assert sum(len(c) for c in endpoint.calls) == 7  # each embedded once


def test_a_search_answers_without_related_results_when_the_endpoint_fails(copy, endpoint, ctx):
    embeddings.embed_pending()
    endpoint.fail = [500]
    out = use_tool(ctx, "search.search", {"query": "pastry"})
    assert "error" not in out and out["total"] == 1 and "related" not in out
    out = use_tool(ctx, "search.search", {"query": "pastry"})  # through the tool, no transaction open across it
    assert out["related"] == 3


def test_an_item_the_endpoint_refuses_is_marked_and_does_not_stop_the_rest(copy, endpoint):
    endpoint.refuse = "Poster"
    assert embeddings.embed_pending(batch=4) == 7
    refused = SearchEmbedding.objects.get(item__key="doc:3")
    assert bytes(refused.vector) == b""
    assert embeddings.embed_pending() == 0
    assert "doc:3" not in {r["id"] for r in search(copy, query="signage flyer")["results"] if r.get("related")}


def test_a_changed_text_is_embedded_again_and_an_unchanged_one_is_not(copy, endpoint):
    embeddings.embed_pending()
    sent = sum(len(c) for c in endpoint.calls)
    index.put(copy, [entry("doc:1", "Croissant order", "Two dozen for Friday", days=1)])  # as it was
    index.put(copy, [entry("doc:3", "Poster proofs", "Now about the dental clinic", days=3)])
    assert embeddings.embed_pending() == 1
    assert endpoint.calls[-1] == ["Poster proofs\nNow about the dental clinic"]
    assert sum(len(c) for c in endpoint.calls) == sent + 1


def test_a_worker_killed_mid_way_goes_on_from_what_is_written(copy, endpoint, monkeypatch):
    real = embeddings.embed
    calls = []

    def dies_on_the_second_call(client, texts):
        calls.append(texts)
        if len(calls) == 2:
            raise SystemExit("kill -9")
        return real(client, texts)

    monkeypatch.setattr(embeddings, "embed", dies_on_the_second_call)
    with pytest.raises(SystemExit):
        embeddings.embed_pending(batch=3)
    assert SearchEmbedding.objects.count() == 3
    monkeypatch.setattr(embeddings, "embed", real)
    assert embeddings.embed_pending(batch=3) == 4
    assert SearchEmbedding.objects.count() == 7
    assert sorted(t for c in endpoint.calls for t in c) == sorted(set(t for c in endpoint.calls for t in c))


def test_the_nearest_by_sign_bits_are_the_ones_ranked(copy, endpoint, monkeypatch):
    embeddings.embed_pending()
    rows = [(1, embeddings.signs([1, -1, -1, 1])), (2, embeddings.signs([1, 1, 1, 1])),
            (3, embeddings.signs([-1, 1, 1, -1])), (4, embeddings.signs([1, -1, -1, -1]))]
    assert embeddings.shortlist(embeddings.signs([1, -1, -1, 1]), rows, 2) == [1, 4]
    # A shortlist shorter than the candidates: still only the bakery's things, found by their bits first.
    monkeypatch.setattr(embeddings, "SHORTLIST", 3)
    out = search(copy, query="pastry")
    related = {r.get("thread", r["id"]) for r in out["results"] if r.get("related")}
    assert related and related <= {"doc:1", "doc:2", "mail:k:t:1"}
    assert all(bytes(e.signs) for e in SearchEmbedding.objects.exclude(vector=b""))
