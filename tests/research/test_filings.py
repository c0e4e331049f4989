"""The filings group on recorded EDGAR answers: the client's identity and errors (EDGAR's 429 and its "Request Rate
Threshold Exceeded" page), the store that fetches a filing once, the worker's fetch, and the tools as declared."""

import datetime
import json

import httpx
import pytest
import respx
from django.utils import timezone
from django_q.models import Schedule

from research import edgar, services
from research.filing_text import filing_text
from research.models import CompanyListing, EdgarCompany, Filing
from research.shapes import TEXT_LIMIT
from tests.factories import CompanyFactory
from tests.research.conftest import recorded
from tools import registry
from tools.catalog import browse_description, browse_tools, find_tools

TICKERS = edgar.TICKERS_URL
COSTCO = "https://data.sec.gov/submissions/CIK0000909832.json"
TEN_K = "https://www.sec.gov/Archives/edgar/data/909832/000090983226000061/cost-20260831.htm"


@pytest.fixture
def edgar_recorded():
    with respx.mock(assert_all_called=False) as mock:
        mock.get(TICKERS).respond(200, content=recorded("company_tickers.json"),
                                  headers={"content-type": "application/json"})
        mock.get(COSTCO).respond(200, content=recorded("submissions_CIK0000909832.json"),
                                 headers={"content-type": "application/json"})
        mock.get(TEN_K).respond(200, content=recorded("cost-20260831.htm"), headers={"content-type": "text/html"})
        yield mock


@pytest.fixture
def costco(org):
    return CompanyFactory(organization=org, name="Costco", details={"Ticker": "cost"})


# --- the client ---------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_every_request_names_the_configured_contact(edgar_recorded, settings):
    settings.EDGAR_USER_AGENT = "Fernhill Studio sam@fernhill.test"
    with edgar.EdgarClient() as client:
        rows = client.company_tickers()
    assert {"cik": 909832, "ticker": "COST", "name": "COSTCO WHOLESALE CORP /NEW"} in rows
    assert edgar_recorded.calls.last.request.headers["user-agent"] == "Fernhill Studio sam@fernhill.test"


@pytest.mark.django_db
def test_without_a_contact_it_makes_no_request(settings, org, costco, use):
    settings.EDGAR_USER_AGENT = ""
    services.research_settings_set(org=org, filings=True)
    with respx.mock(assert_all_mocked=True) as mock:
        result = use("filings.latest", companyIds=[str(costco.id)])
    assert result["error"] == "unsupported" and "EDGAR_USER_AGENT" in result["message"]
    assert not mock.calls


@pytest.mark.django_db
@pytest.mark.parametrize("answer", [
    httpx.Response(429, headers={"retry-after": "10"}, text="Too Many Requests"),
    httpx.Response(403, content=recorded("rate_limited.html"), headers={"content-type": "text/html"}),
])
def test_edgar_limiting_requests_is_rate_limited(answer):
    with respx.mock() as mock:
        mock.get(COSTCO).mock(return_value=answer)
        with edgar.EdgarClient() as client, pytest.raises(edgar.EdgarRateLimited) as raised:
            client.submissions(909832)
    assert raised.value.retry_after == (10.0 if answer.status_code == 429 else None)


@pytest.mark.django_db
def test_a_403_that_is_not_about_the_rate_is_edgars_own_error():
    with respx.mock() as mock:
        mock.get(COSTCO).respond(403, text="Forbidden")
        with edgar.EdgarClient() as client, pytest.raises(edgar.EdgarError) as raised:
            client.submissions(909832)
    assert not isinstance(raised.value, edgar.EdgarRateLimited)


@pytest.mark.django_db
def test_edgar_down_or_garbled_is_told_apart():
    with respx.mock() as mock:
        mock.get(COSTCO).mock(side_effect=httpx.ConnectTimeout("slow"))
        with edgar.EdgarClient() as client, pytest.raises(edgar.EdgarUnavailable):
            client.submissions(909832)
        mock.get(COSTCO).respond(200, text="<html>maintenance</html>")
        with edgar.EdgarClient() as client, pytest.raises(edgar.EdgarError, match="isn't JSON"):
            client.submissions(909832)
        mock.get(COSTCO).respond(200, json={"name": "x"})
        with edgar.EdgarClient() as client, pytest.raises(edgar.EdgarError, match="shape"):
            client.submissions(909832)


def test_a_filings_text_leaves_out_the_hidden_xbrl_scripts_and_markup():
    text = filing_text(recorded("cost-20260831.htm").decode(), "text/html")
    assert "FORM 10-K" in text and "August 31, 2026" in text
    assert "Net sales | $ | 269,912" in text
    assert "AmendmentFlag" not in text and "false" not in text.split("FORM 10-K")[0]
    assert "alert" not in text and "<" not in text


# --- the tools ---------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_latest_lists_each_companys_filings_newest_first(edgar_recorded, research_on, costco, use):
    result = use("filings.latest", companyIds=[str(costco.id)])
    items = result["items"]
    assert [i["accession"] for i in items[:3]] == [
        "0000909832-26-000061", "0000909832-26-000058", "0001127602-26-021514"]
    assert items[0] == {
        "accession": "0000909832-26-000061", "form": "10-K", "what": "Annual report", "period": "2026-08-31",
        "filedAt": "2026-10-08", "companyId": str(costco.id), "company": "COSTCO WHOLESALE CORP /NEW",
        "ticker": "COST",
    }
    assert items[-1]["period"] is None  # EDGAR's empty reportDate
    assert "notListed" not in result


@pytest.mark.django_db
def test_edgar_is_read_again_only_when_its_answer_is_old(edgar_recorded, research_on, costco, use):
    use("filings.latest", companyIds=[str(costco.id)])
    use("filings.latest", companyIds=[str(costco.id)])
    assert edgar_recorded.routes[1].call_count == 1  # the submissions, once
    assert edgar_recorded.routes[0].call_count == 1  # the ticker list, once a day
    EdgarCompany.objects.filter(cik=909832).update(
        submissions_fetched_at=timezone.now() - services.SUBMISSIONS_FRESH - datetime.timedelta(seconds=1))
    use("filings.latest", companyIds=[str(costco.id)])
    assert edgar_recorded.routes[1].call_count == 2


@pytest.mark.django_db
def test_a_company_is_found_by_its_cik_or_its_exact_name_and_otherwise_said_not_listed(
    edgar_recorded, research_on, org, use
):
    by_cik = CompanyFactory(organization=org, name="The warehouse people", details={"CIK": "909832"})
    by_name = CompanyFactory(organization=org, name="Costco Wholesale Corp.")
    bakery = CompanyFactory(organization=org, name="Ortiz Bakery")
    result = use("filings.latest", companyIds=[str(by_cik.id), str(by_name.id), str(bakery.id)])
    assert {i["companyId"] for i in result["items"]} == {str(by_cik.id), str(by_name.id)}
    assert [n["companyId"] for n in result["notListed"]] == [str(bakery.id)]
    assert CompanyListing.objects.filter(organization=org).count() == 2


@pytest.mark.django_db
def test_a_cik_edgar_does_not_know_is_not_listed(research_on, org, use):
    wrong = CompanyFactory(organization=org, name="Typo Inc", details={"CIK": "123"})
    with respx.mock() as mock:
        mock.get("https://data.sec.gov/submissions/CIK0000000123.json").respond(404, text="Not Found")
        result = use("filings.latest", companyIds=[str(wrong.id)])
    assert result["items"] == [] and [n["companyId"] for n in result["notListed"]] == [str(wrong.id)]
    assert not CompanyListing.objects.filter(company=wrong).exists()


@pytest.mark.django_db
def test_latest_refuses_another_workspaces_company_before_calling_edgar(research_on, other_org, use):
    theirs = CompanyFactory(organization=other_org, name="Costco", details={"Ticker": "COST"})
    with respx.mock() as mock:
        result = use("filings.latest", companyIds=[str(theirs.id)])
    assert result["error"] == "not_found" and not mock.calls


@pytest.mark.django_db
@pytest.mark.parametrize(
    "ids, field",
    [([], "companyIds"), (["8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22"] * 51, "companyIds"), (["not-an-id"], "companyIds")],
)
def test_latest_limits(research_on, use, ids, field):
    result = use("filings.latest", companyIds=ids)
    assert result["error"] == "bad_input" and field in result["message"]


@pytest.mark.django_db
def test_latest_rate_limited_by_edgar_says_so(research_on, costco, use):
    with respx.mock(assert_all_called=False) as mock:
        mock.get(TICKERS).respond(200, content=recorded("company_tickers.json"))
        mock.get(COSTCO).respond(403, content=recorded("rate_limited.html"))
        result = use("filings.latest", companyIds=[str(costco.id)])
    assert result["error"] == "rate_limited"


@pytest.mark.django_db
def test_read_is_fetched_once_by_a_worker_then_read_from_the_store(
    edgar_recorded, research_on, costco, use, monkeypatch, django_capture_on_commit_callbacks
):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kw: queued.append((func, args)))
    use("filings.latest", companyIds=[str(costco.id)])
    with django_capture_on_commit_callbacks(execute=True):
        first = use("filings.read", accession="0000909832-26-000061")
        again = use("filings.read", accession="000090983226000061")  # the same accession without dashes
    assert first == again == {"state": "fetching"}
    assert queued == [("research.tasks.fetch_filing", ("0000909832-26-000061",))]  # asked once

    assert services.filing_fetch(accession="0000909832-26-000061") == "fetched"
    assert services.filing_fetch(accession="0000909832-26-000061") == "skipped"  # a duplicate task does nothing
    assert edgar_recorded.routes[2].call_count == 1
    read = use("filings.read", accession="0000909832-26-000061")
    assert read["title"] == "cost-20260831"
    assert read["url"] == TEN_K
    assert "COSTCO WHOLESALE CORPORATION" in read["text"] and "Risk Factors" in read["text"]


@pytest.mark.django_db
def test_a_rate_limited_fetch_waits_and_tries_again_later(research_on, costco, use, monkeypatch):
    monkeypatch.setattr("django_q.tasks.async_task", lambda *a, **kw: None)
    with respx.mock(assert_all_called=False) as mock:
        mock.get(TICKERS).respond(200, content=recorded("company_tickers.json"))
        mock.get(COSTCO).respond(200, content=recorded("submissions_CIK0000909832.json"))
        use("filings.latest", companyIds=[str(costco.id)])
        use("filings.read", accession="0000909832-26-000061")
        ten_k = mock.get(TEN_K)
        ten_k.respond(429, headers={"retry-after": "120"})
        now = timezone.now()
        assert services.filing_fetch(accession="0000909832-26-000061", now=now) == "retry"
        filing = Filing.objects.get(accession="0000909832-26-000061")
        assert filing.state == Filing.State.FETCHING and filing.claimed_until >= now + datetime.timedelta(seconds=120)
        schedule = Schedule.objects.get(func="research.tasks.fetch_filing")
        assert schedule.schedule_type == Schedule.ONCE and schedule.next_run == filing.claimed_until
        assert use("filings.read", accession="0000909832-26-000061") == {"state": "fetching"}
        # Before the wait is over, no worker fetches it.
        assert (
            services.filing_fetch(accession="0000909832-26-000061", now=now + datetime.timedelta(seconds=30))
            == "skipped"
        )
        ten_k.respond(200, content=recorded("cost-20260831.htm"), headers={"content-type": "text/html"})
        later = now + datetime.timedelta(seconds=121)
        assert services.filing_fetch(accession="0000909832-26-000061", now=later) == "fetched"
    assert "FORM 10-K" in use("filings.read", accession="0000909832-26-000061")["text"]


@pytest.mark.django_db
def test_a_fetch_that_keeps_failing_is_told_as_unavailable(research_on, costco, use, monkeypatch):
    monkeypatch.setattr("django_q.tasks.async_task", lambda *a, **kw: None)
    with respx.mock(assert_all_called=False) as mock:
        mock.get(TICKERS).respond(200, content=recorded("company_tickers.json"))
        mock.get(COSTCO).respond(200, content=recorded("submissions_CIK0000909832.json"))
        mock.get(TEN_K).respond(503)
        use("filings.latest", companyIds=[str(costco.id)])
        use("filings.read", accession="0000909832-26-000061")
        now = timezone.now()
        outcomes = [services.filing_fetch(accession="0000909832-26-000061", now=now + datetime.timedelta(hours=i))
                    for i in range(services.MAX_FETCH_ATTEMPTS)]
    assert outcomes == ["retry", "retry", "failed"]
    result = use("filings.read", accession="0000909832-26-000061")
    assert result["error"] == "unavailable" and "503" in result["message"]


@pytest.mark.django_db
def test_a_worker_killed_mid_fetch_leaves_a_claim_that_lapses(research_on, costco, use, monkeypatch, edgar_recorded):
    monkeypatch.setattr("django_q.tasks.async_task", lambda *a, **kw: None)
    use("filings.latest", companyIds=[str(costco.id)])
    use("filings.read", accession="0000909832-26-000061")
    now = timezone.now()
    # A worker claimed it and died (kill -9) before storing anything.
    Filing.objects.filter(accession="0000909832-26-000061").update(claimed_until=now + services.FETCH_CLAIM, attempts=1)
    assert services.filing_fetch(accession="0000909832-26-000061", now=now) == "skipped"
    assert services.filing_fetch(accession="0000909832-26-000061", now=now + services.FETCH_CLAIM
                                 + datetime.timedelta(seconds=1)) == "fetched"
    assert edgar_recorded.routes[2].call_count == 1


@pytest.mark.django_db
def test_read_gives_a_long_filing_in_part_with_where_the_rest_is(research_on, costco, use, edgar_recorded):
    use("filings.latest", companyIds=[str(costco.id)])
    Filing.objects.filter(accession="0000909832-26-000061").update(
        state=Filing.State.FETCHED, text="x" * (TEXT_LIMIT + 500), title="cost-20260831")
    text = use("filings.read", accession="0000909832-26-000061")["text"]
    assert text.startswith("x" * TEXT_LIMIT) and "500 more characters" in text and TEN_K in text


@pytest.mark.django_db
def test_read_refuses_a_filing_of_a_company_the_workspace_does_not_follow(
    edgar_recorded, research_on, costco, use, other_org
):
    from core.actors import Actor
    from core.context import ToolContext
    from tests.factories import AgentFactory

    use("filings.latest", companyIds=[str(costco.id)])  # this workspace follows Costco: its filings are stored
    services.research_settings_set(org=other_org, filings=True)
    theirs = ToolContext(org=other_org, actor=Actor.for_agent(AgentFactory(organization=other_org)))
    result = use("filings.read", _ctx=theirs, accession="0000909832-26-000061")
    assert result["error"] == "not_found"
    assert use("filings.read", accession="0000000000-00-000000")["error"] == "not_found"


@pytest.mark.django_db
@pytest.mark.parametrize("accession", ["", "x" * 41, "10-K of Costco"])
def test_read_limits(research_on, use, accession):
    result = use("filings.read", accession=accession)
    assert result["error"] == "bad_input" and "accession" in result["message"]


# --- optional per workspace -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_off_the_group_is_listed_as_off_in_browse_and_refused(ctx, org, costco, use):
    assert ("- filings: public companies' filings (2; off here: the owner turns it on, on the Newsfeed page)"
            in browse_description(org).splitlines())
    assert browse_tools(ctx, ["filings"])["filings"]["filings.read"].endswith(
        "(off here: the owner turns it on, on the Newsfeed page)")
    assert "off in this workspace" in find_tools(ctx, ["filings.latest"])["no_such_tool"]["filings.latest"][0]
    with respx.mock() as mock:
        result = use("filings.latest", companyIds=[str(costco.id)])
    assert result["error"] == "unsupported" and "off in this workspace" in result["message"] and not mock.calls
    services.research_settings_set(org=org, filings=True)
    assert "- filings: public companies' filings (2)" in browse_description(org)
    assert set(browse_tools(ctx, ["filings"])["filings"]) == {"filings.latest", "filings.read"}
    assert find_tools(ctx, ["filings.read"])["howTo"] == {
        "filings": "SEC filings stored for companies: 10-K, 10-Q, 8-K, 20-F, proxies and more."}


def test_declarations_are_the_specs():
    from tests.spec import spec_tools

    for name in ("filings.latest", "filings.read"):
        tool, spec = registry.TOOLS[name], spec_tools()[name]
        assert (tool.description, tool.owners_yes) == (spec["does"], spec["owners_yes"])
    assert registry.TOOLS["filings.latest"].calls_apps
    schema = registry.TOOLS["filings.latest"].input_schema()["properties"]["companyIds"]
    assert (schema["minItems"], schema["maxItems"]) == (1, 50)
    schema = registry.TOOLS["filings.read"].input_schema()["properties"]["accession"]
    assert (schema["minLength"], schema["maxLength"]) == (1, 40)
    json.dumps(registry.TOOLS["filings.read"].describe())


@pytest.mark.django_db
def test_an_outside_apps_browse_description_says_what_its_workspace_has_off(org):
    from mcp_server.server import outside_tools

    def browse_line(workspace):
        [browse] = [t for t in outside_tools(org=workspace) if t.name == "browse_tools"]
        return browse.description

    assert "- filings: public companies' filings (2; off here:" in browse_line(org)
    services.research_settings_set(org=org, filings=True)
    assert "- filings: public companies' filings (2)" in browse_line(org)
