"""The web group through use_tool, as a thread runs it: its declarations against the spec, its limits, its absence
without a search provider, search on recorded answers, reading a local fake site, and SSRF refused at the door."""

import re

import httpx
import pytest
import respx
from django.db import transaction

from core.network import TransactionOpen
from tests.integrations.web_fakes import HOURS_PAGE, recorded
from tests.spec import spec_page, spec_tools
from tools import registry
from tools.catalog import browse_description, browse_tools, find_tools

SEARX = "http://searx.internal.test:8888"
WEB_TOOLS = ["web.search", "web.read"]


@pytest.fixture
def searx(web_on):
    with respx.mock(assert_all_called=False) as router:
        router.get(f"{SEARX}/search").mock(
            side_effect=lambda request: httpx.Response(200, json=recorded(
                "searxng_parking.json" if "parking" in request.url.params["q"] else "searxng_library_hours.json"
            ))
        )
        yield router


# --- the declarations against the spec ------------------------------------------------------------------------


@pytest.mark.parametrize("name", WEB_TOOLS)
def test_description_yes_and_listing_are_the_specs(name):
    tool, spec = registry.TOOLS[name], spec_tools()[name]
    assert (tool.description, tool.owners_yes, tool.describe()["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", WEB_TOOLS)
def test_inputs_and_required_inputs_are_the_specs(name):
    schema = registry.TOOLS[name].input_schema()
    inputs = spec_tools()[name]["inputs"]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in inputs}, {i["name"] for i in inputs if i["required"]}
    )


def _limits_of(name: str) -> dict[str, str]:
    section = spec_page("tools/web.md").split(f"`{name}` ·", 1)[1].split("Returns:", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| (?:yes|no) \| ([^|]*) \|$", section, flags=re.M)
    return dict(rows)


def test_the_limits_read_here_are_the_spec_pages():
    assert _limits_of("web.search") == {"objective": "1–500 characters", "queries": "1–4 items, each 1–120 characters",
                                        "limit": "1–10"}
    assert _limits_of("web.read") == {"urls": "1–5 items", "objective": "1–500 characters"}


@pytest.mark.parametrize("name", WEB_TOOLS)
def test_the_tools_call_out_with_no_transaction_open_and_change_nothing(name):
    tool = registry.TOOLS[name]
    assert tool.calls_apps and tool.kind == "reads" and tool.your_work is None


def test_the_group_how_to_and_line_are_the_specs(web_on):
    group = registry.GROUPS["web"]
    block = spec_page("tools/web.md").split("## How to use it", 1)[1].split("## Tools", 1)[0]
    quoted = " ".join(line[2:] for line in block.splitlines() if line.startswith("> "))
    assert (group.how_to, group.summary) == (quoted.strip(), "search the web and read pages")
    ours = [line for line in browse_description().splitlines() if line.startswith("- web:")]
    assert len(ours) == 1 and f"> {ours[0]}" in spec_page("tools/catalog.md").splitlines()


# --- without a provider the group is absent, not broken -------------------------------------------------------


def test_without_a_provider_the_group_is_listed_as_off_and_refused_by_find(ctx):
    [line] = [line for line in browse_description(ctx.org).splitlines() if line.startswith("- web:")]
    assert line == ("- web: search the web and read pages (2; off here: whoever runs this Roadstar turns it on by "
                    "setting up a web search provider)")
    result = browse_tools(ctx, ["web", "contacts"])
    assert "contacts" in result and "not_available" not in result
    assert all(words.endswith("setting up a web search provider)") for words in result["web"].values())
    found = find_tools(ctx, ["web.search", "contacts.find"])
    assert [t["name"] for t in found["found"]] == ["contacts.find"] and "web" not in found["howTo"]
    assert "isn't set up" in found["no_such_tool"]["web.search"][0] and "web.search" not in ctx.loaded


@pytest.mark.parametrize(("name", "inp"), [("web.search", {"objective": "x", "queries": ["x"]}),
                                           ("web.read", {"urls": ["https://example.test/"]})])
def test_without_a_provider_a_direct_call_says_what_to_set(use, name, inp):
    result = use(name, **inp)
    assert result["error"] == "unsupported"
    assert "SEARXNG_URL" in result["message"] and "BRAVE_SEARCH_API_KEY" in result["message"]


def test_with_a_provider_the_group_is_in_browse_and_find(ctx, web_on):
    assert "- web: search the web and read pages (2)" in browse_description(ctx.org).splitlines()
    assert browse_tools(ctx, ["web"])["web"] == {t: registry.TOOLS[t].description for t in WEB_TOOLS}
    found = find_tools(ctx, WEB_TOOLS)
    assert [t["name"] for t in found["found"]] == WEB_TOOLS
    assert found["howTo"] == {"web": "The open web. Results carry their links: say which page a fact came from."}


# --- limits: bad input names the field ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inp", "where"),
    [
        ({"objective": "", "queries": ["a"]}, "objective"),
        ({"objective": "x" * 501, "queries": ["a"]}, "objective"),
        ({"objective": "   ", "queries": ["a"]}, "objective"),
        ({"queries": ["a"]}, "objective"),
        ({"objective": "x"}, "queries"),
        ({"objective": "x", "queries": []}, "queries"),
        ({"objective": "x", "queries": ["a", "b", "c", "d", "e"]}, "queries"),
        ({"objective": "x", "queries": ["a", ""]}, "queries[1]"),
        ({"objective": "x", "queries": ["a", "q" * 121]}, "queries[1]"),
        ({"objective": "x", "queries": "just text"}, "queries"),
        ({"objective": "x", "queries": ["a"], "limit": 0}, "limit"),
        ({"objective": "x", "queries": ["a"], "limit": 11}, "limit"),
        ({"objective": "x", "queries": ["a"], "limit": "5"}, "limit"),
        ({"objective": "x", "queries": ["a"], "site": "x.test"}, "site"),
    ],
)
def test_search_limits(use, web_on, inp, where):
    result = use("web.search", **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(where), result


def test_search_takes_its_limits_exactly(use, searx):
    result = use("web.search", objective="o" * 500, queries=["q" * 120, "b", "c", "parking"], limit=10)
    assert "results" in result
    assert len(use("web.search", objective="x", queries=["a"], limit=1)["results"]) == 1


@pytest.mark.parametrize(
    ("inp", "where"),
    [
        ({}, "urls"),
        ({"urls": []}, "urls"),
        ({"urls": [f"https://example.test/{i}" for i in range(6)]}, "urls"),
        ({"urls": ["example.test"]}, "urls[0]"),
        ({"urls": ["https://example.test/", "ftp://example.test/a"]}, "urls[1]"),
        ({"urls": ["https://example.test/"], "objective": ""}, "objective"),
        ({"urls": ["https://example.test/"], "objective": "x" * 501}, "objective"),
    ],
)
def test_read_limits(use, web_on, inp, where):
    result = use("web.read", **inp)
    assert result["error"] == "bad_input" and result["message"].startswith(where), result


# --- search ---------------------------------------------------------------------------------------------------


def test_search_returns_pages_with_their_links_and_passages(use, searx):
    result = use("web.search", objective="When is the Harbor central library open on Saturdays?",
                 queries=["harbor library opening hours"], limit=2)
    assert result == {"results": [
        {"title": "Central Library | Harbor Council", "url": "https://www.harborcouncil.test/libraries/central",
         "published": None,
         "excerpts": ["Central Library is open Monday to Friday 9am–6pm and Saturday 10am–4pm. Closed Sundays and "
                      "bank holidays."]},
        {"title": "Library opening hours change from October",
         "url": "https://harbornews.test/2025/09/library-hours-change", "published": "2025-09-18",
         "excerpts": ["The council confirmed that the Central Library will open later on Saturdays from October."]},
    ]}


def test_search_never_runs_with_a_transaction_open(use, searx):
    with transaction.atomic(), pytest.raises(TransactionOpen):
        use("web.search", objective="library", queries=["harbor library opening hours"])


def test_search_answers_the_providers_failure_as_its_kind(use, web_on):
    with respx.mock() as router:
        router.get(f"{SEARX}/search").mock(return_value=httpx.Response(429))
        result = use("web.search", objective="library", queries=["harbor library"])
    assert result["error"] == "rate_limited" and "SearXNG is limiting searches" in result["message"]


# --- read -----------------------------------------------------------------------------------------------------


def test_read_returns_the_pages_text_and_what_failed(use, web_on, site):
    site.page("/central", HOURS_PAGE)
    result = use("web.read", urls=[site.url("/central"), site.url("/missing")],
                 objective="Saturday opening hours")
    assert result["pages"] == [{"title": "Central Library", "url": site.url("/central"),
                                "text": "Opening hours: the library opens at 9am Monday to Friday and closes at 6pm. "
                                        "On Saturdays it opens at 10am and closes at 4pm. It is closed on Sundays "
                                        "and bank holidays."}]
    assert result["failed"] == [{"url": site.url("/missing"), "error": f"Nothing at {site.url('/missing')} (HTTP "
                                                                      "404), or it was moved. Search for it again."}]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]:8080/", "127.0.0.1 is a loopback address"),
        ("http://0177.0.0.1/", "127.0.0.1 is a loopback address"),
        ("http://3232235777/", "192.168.1.1 is a private network address"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata address"),
        ("http://[fe80::1]/", "link-local"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://239.1.1.1/", "multicast"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://intranet.test/", "intranet.test resolves to 10.2.3.4 is a private network address"),
        ("https://example.test:5432/", "port 5432 is not one of the web's ports"),
    ],
)
def test_read_refuses_what_is_not_the_public_web_naming_the_url_and_why(use, web_on, dns, url, why):
    dns({"intranet.test": ["10.2.3.4"], "example.test": ["93.184.216.34"]})
    result = use("web.read", urls=["https://example.test/", url])
    assert result["error"] == "bad_input"
    assert result["message"].startswith(f"urls[1]: {url} is refused: ") and why in result["message"]


def test_read_never_runs_with_a_transaction_open(use, web_on, site):
    site.page("/a", "<p>A.</p>")
    with transaction.atomic(), pytest.raises(TransactionOpen):
        use("web.read", urls=[site.url("/a")])
    assert site.seen == []


def test_the_help_pages_name_the_errors_the_web_tools_can_return():
    from core.errors import ERROR_KINDS
    from tools.help.generate import errors_of

    search, read = (errors_of(registry.TOOLS[name]) for name in WEB_TOOLS)
    assert set(search) <= set(ERROR_KINDS) and set(read) <= set(ERROR_KINDS)
    assert "rate_limited" in search and "not_connected" not in search + read and "reauth" not in search + read
