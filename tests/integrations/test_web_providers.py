"""The web search providers on recorded answers (respx): SearXNG's JSON API and Brave Search's API, the merged and
ranked results of web_search, and every failure as the spec's error kinds, in clear words."""

import httpx
import pytest
import respx

from core.errors import ToolError
from integrations.web.providers import BRAVE_ENDPOINT, BraveSearch, SearXNG, configured_provider
from integrations.web.services import web_search
from tests.integrations.web_fakes import recorded

SEARX = "http://searx.internal.test:8888"


def searx_answers(router, answers: dict):
    """Each query answered with its recorded response."""

    def answer(request):
        query = request.url.params["q"]
        assert request.url.params["format"] == "json"
        return httpx.Response(200, json=recorded(answers[query]))

    router.get(f"{SEARX}/search").mock(side_effect=answer)


# --- which provider --------------------------------------------------------------------------------------------


def test_no_provider_without_settings(settings):
    assert configured_provider() is None


def test_the_configured_provider_is_chosen(settings):
    settings.SEARXNG_URL = SEARX
    assert isinstance(configured_provider(), SearXNG)
    settings.BRAVE_SEARCH_API_KEY = "key-1"
    assert isinstance(configured_provider(), SearXNG)  # both set: SearXNG unless WEB_SEARCH_PROVIDER says
    settings.WEB_SEARCH_PROVIDER = "brave"
    assert isinstance(configured_provider(), BraveSearch)
    settings.SEARXNG_URL = None
    settings.WEB_SEARCH_PROVIDER = None
    assert isinstance(configured_provider(), BraveSearch)
    settings.WEB_SEARCH_PROVIDER = "searxng"  # named, but without its address: not set up
    assert configured_provider() is None


# --- SearXNG ---------------------------------------------------------------------------------------------------


@respx.mock
def test_searxng_results_as_hits():
    respx.get(f"{SEARX}/search").mock(return_value=httpx.Response(200, json=recorded("searxng_library_hours.json")))
    hits = SearXNG(SEARX + "/").search("harbor library opening hours", count=10)
    assert [h.url for h in hits] == [
        "https://www.harborcouncil.test/libraries/central",
        "https://harbornews.test/2025/09/library-hours-change",
        "https://www.tripguide.test/harbor/things-to-do",
    ]  # the ftp:// result is left out
    assert hits[0].snippets == ["Central Library is open Monday to Friday 9am–6pm and Saturday 10am–4pm. Closed "
                                "Sundays and bank holidays."]
    assert hits[1].title == "Library opening hours change from October" and hits[1].published == "2025-09-18"
    assert hits[0].published is None
    request = respx.calls.last.request
    assert request.url.params["q"] == "harbor library opening hours" and request.url.params["format"] == "json"


@respx.mock
def test_searxng_refusing_json_says_what_to_fix():
    respx.get(f"{SEARX}/search").mock(return_value=httpx.Response(403, text="Forbidden"))
    with pytest.raises(ToolError) as caught:
        SearXNG(SEARX).search("q", count=5)
    assert caught.value.kind == "unavailable" and "add json to search.formats" in caught.value.message


@respx.mock
def test_searxng_with_every_engine_down_is_unavailable_naming_them():
    respx.get(f"{SEARX}/search").mock(return_value=httpx.Response(200, json=recorded("searxng_engines_down.json")))
    with pytest.raises(ToolError) as caught:
        SearXNG(SEARX).search("harbor library", count=5)
    assert caught.value.kind == "unavailable"
    assert "duckduckgo, brave, google" in caught.value.message


@pytest.mark.parametrize(
    ("response", "kind", "words"),
    [
        (httpx.Response(429, text="Too Many Requests"), "rate_limited", "SearXNG is limiting searches"),
        (httpx.Response(502, text="Bad Gateway"), "unavailable", "SearXNG didn't answer properly (HTTP 502)"),
        (httpx.Response(200, text="<html>not json</html>"), "vendor", "isn't its JSON results"),
        (httpx.Response(200, json={"query": "q"}), "vendor", "without a list of results"),
        (httpx.Response(400, json={"error": "bad query"}), "vendor", "refused the search (HTTP 400): bad query"),
    ],
)
@respx.mock
def test_searxng_failures_map_to_error_kinds(response, kind, words):
    respx.get(f"{SEARX}/search").mock(return_value=response)
    with pytest.raises(ToolError) as caught:
        SearXNG(SEARX).search("q", count=5)
    assert (caught.value.kind, words in caught.value.message) == (kind, True)


@pytest.mark.parametrize(
    ("error", "words"),
    [(httpx.ConnectError("refused"), "couldn't be reached (ConnectError)"),
     (httpx.ReadTimeout("slow"), "didn't answer in time")],
)
@respx.mock
def test_searxng_not_answering_is_unavailable(error, words):
    respx.get(f"{SEARX}/search").mock(side_effect=error)
    with pytest.raises(ToolError) as caught:
        SearXNG(SEARX).search("q", count=5)
    assert caught.value.kind == "unavailable" and words in caught.value.message


# --- Brave Search ----------------------------------------------------------------------------------------------


@respx.mock
def test_brave_results_as_hits_with_the_key_sent():
    respx.get(BRAVE_ENDPOINT).mock(return_value=httpx.Response(200, json=recorded("brave_library_hours.json")))
    hits = BraveSearch("key-1").search("harbor library opening hours", count=10)
    assert [h.url for h in hits] == ["https://www.harborcouncil.test/libraries/central",
                                     "https://harbornews.test/2025/09/library-hours-change"]
    assert hits[0].snippets[0] == "Central Library is open Monday to Friday 9am–6pm and Saturday 10am–4pm."
    assert "Opening hours: Monday to Friday 9am to 6pm; Saturday 10am to 4pm; closed Sunday." in hits[0].snippets
    assert hits[0].published == "2025-06-02" and hits[1].published is None
    assert hits[1].title == "Harbor library opening hours change from October"
    request = respx.calls.last.request
    assert request.headers["X-Subscription-Token"] == "key-1"
    assert request.url.params["q"] == "harbor library opening hours" and request.url.params["count"] == "10"


@respx.mock
def test_brave_with_nothing_found_is_no_hits():
    respx.get(BRAVE_ENDPOINT).mock(return_value=httpx.Response(200, json=recorded("brave_no_results.json")))
    assert BraveSearch("key-1").search("xqzv harbor nothing", count=5) == []


@pytest.mark.parametrize(
    ("status", "body", "kind", "words"),
    [
        (429, "brave_rate_limited.json", "rate_limited", "Brave Search is limiting searches"),
        (401, "brave_invalid_token.json", "unavailable", "check BRAVE_SEARCH_API_KEY"),
        (422, "brave_validation.json", "vendor", "Unable to validate request parameter(s)"),
        (500, None, "unavailable", "Brave Search didn't answer properly (HTTP 500)"),
    ],
)
@respx.mock
def test_brave_failures_map_to_error_kinds(status, body, kind, words):
    respx.get(BRAVE_ENDPOINT).mock(return_value=httpx.Response(status, json=recorded(body) if body else None))
    with pytest.raises(ToolError) as caught:
        BraveSearch("key-1").search("q", count=5)
    assert caught.value.kind == kind and words in caught.value.message


# --- web_search: the queries merged, one result per page, best for the objective first ---------------------------


@respx.mock
def test_web_search_merges_the_queries_results_one_per_page(web_on):
    searx_answers(respx, {"harbor library opening hours": "searxng_library_hours.json",
                          "harbor central library parking": "searxng_parking.json"})
    result = web_search(objective="When is Harbor's central library open on Saturday, and where to park?",
                        queries=["harbor library opening hours", "harbor central library parking"], limit=10)
    urls = [r["url"] for r in result["results"]]
    # www. and a trailing slash are the same page: one result, with both queries' passages.
    assert urls[0] == "https://www.harborcouncil.test/libraries/central"
    assert len(urls) == len(set(urls)) == 4
    top = result["results"][0]
    assert any("Saturday 10am" in e for e in top["excerpts"]) and any("Parking" in e for e in top["excerpts"])
    assert set(top) == {"title", "url", "published", "excerpts"}
    assert urls[-1] == "https://www.tripguide.test/harbor/things-to-do"  # nothing on the objective: last


@respx.mock
def test_web_search_keeps_to_the_limit(web_on):
    searx_answers(respx, {"harbor library opening hours": "searxng_library_hours.json"})
    result = web_search(objective="library hours", queries=["harbor library opening hours"], limit=1)
    assert len(result["results"]) == 1
    assert len(web_search(objective="library hours", queries=["harbor library opening hours"], limit=3)["results"]) == 3


@respx.mock
def test_web_search_with_one_query_failing_returns_the_others(web_on):
    def answer(request):
        if request.url.params["q"] == "broken":
            return httpx.Response(429)
        return httpx.Response(200, json=recorded("searxng_parking.json"))

    respx.get(f"{SEARX}/search").mock(side_effect=answer)
    result = web_search(objective="parking", queries=["broken", "harbor central library parking"], limit=5)
    assert len(result["results"]) == 2


@respx.mock
def test_web_search_with_every_query_failing_is_the_providers_error(web_on):
    respx.get(f"{SEARX}/search").mock(return_value=httpx.Response(429))
    with pytest.raises(ToolError) as caught:
        web_search(objective="parking", queries=["a", "b"], limit=5)
    assert caught.value.kind == "rate_limited"


@respx.mock
def test_web_search_through_brave(settings):
    settings.BRAVE_SEARCH_API_KEY = "key-1"
    respx.get(BRAVE_ENDPOINT).mock(return_value=httpx.Response(200, json=recorded("brave_library_hours.json")))
    result = web_search(objective="Saturday opening hours of the library", queries=["harbor library hours"],
                        limit=5)
    top = result["results"][0]
    assert top["url"] == "https://www.harborcouncil.test/libraries/central" and top["published"] == "2025-06-02"
    # At most three passages, the ones that bear on the objective first: the Wi-Fi line is left out.
    assert len(top["excerpts"]) == 3 and not any("Wi-Fi" in e for e in top["excerpts"])
    assert {e for e in top["excerpts"] if "Saturday" in e} == {
        "Central Library is open Monday to Friday 9am–6pm and Saturday 10am–4pm.",
        "Opening hours: Monday to Friday 9am to 6pm; Saturday 10am to 4pm; closed Sunday.",
    }


def test_web_search_without_a_provider_says_what_to_set():
    with pytest.raises(ToolError) as caught:
        web_search(objective="x", queries=["x"], limit=5)
    assert caught.value.kind == "unsupported" and "SEARXNG_URL" in caught.value.message
