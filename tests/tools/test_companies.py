"""The companies group, tool by tool, through use_tool as a thread runs them."""

import datetime
import uuid

import pytest
from django.utils import timezone

from core.actors import Actor
from core.models import Change
from core.services import change_undo
from records.models import Company, CompanyPerson, LogEntry, OpenItem, ProjectLink, TimelineEntry
from tests.factories import AgentFactory, CompanyFactory, ContactFactory, DocFactory, ProjectFactory
from tools import registry
from tools.pipeline import made_here, use_tool


def at(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


@pytest.fixture
def juniper(org):
    return CompanyFactory(organization=org, name="Juniper Dental", domains=["juniperdental.test"], labels=["Lead"])


@pytest.fixture
def entry(org, agent):
    """`entry(company, title=…, at=…, …)`: a conversation on a company's timeline."""

    def make(company, **fields):
        fields.setdefault("kind", "mail")
        fields.setdefault("title", "Rebrand quote request")
        fields.setdefault("at", at("2026-11-10T10:12:00+00:00"))
        fields.setdefault("by", {"kind": "agent", "id": str(agent.id)})
        return TimelineEntry.objects.create(organization=org, company=company, **fields)

    return make


@pytest.fixture
def other(other_org):
    """Records of another workspace: a company with an entry and an open item, and a contact."""
    company = CompanyFactory(organization=other_org, name="Elsewhere Ltd")
    contact = ContactFactory(organization=other_org, name="Eli Else", emails=["eli@elsewhere.test"])
    item = OpenItem.objects.create(
        organization=other_org, company=company, kind="you", text="Send it", at=timezone.now(), by_kind="user",
        by_id="1",
    )
    timeline_entry = TimelineEntry.objects.create(
        organization=other_org, company=company, kind="note", title="Theirs", at=timezone.now(), by={}
    )
    return {"company": company, "contact": contact, "item": item, "entry": timeline_entry}


def log_of(company, kind):
    return LogEntry.objects.filter(company=company, kind=kind).order_by("-at")


def change_of(tool):
    return Change.objects.filter(tool=tool).order_by("-at").first()


def bad(out, field):
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


# --- list -------------------------------------------------------------------------------------------------


def test_list_row_has_people_handler_and_last(use, org, agent, juniper, dana, entry):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, role="Practice manager")
    juniper.handler = agent
    juniper.save()
    entry(juniper, at=at("2026-11-10T10:12:00+00:00"))
    entry(juniper, at=at("2026-11-12T09:00:00+00:00"), thread="t2")
    row = use("companies.list")["items"][0]
    assert (row["name"], row["handler"], row["people"], row["peopleCount"], row["last"]) == (
        "Juniper Dental", "Client desk", [{"id": str(dana.id), "name": "Dana Whitfield"}], 1, "2026-11-12T09:00:00Z"
    )


def test_list_names_five_people_and_counts_them_all(use, org, juniper):
    for _ in range(7):
        CompanyPerson.objects.create(organization=org, company=juniper, contact=ContactFactory(organization=org))
    row = use("companies.list")["items"][0]
    assert (len(row["people"]), row["peopleCount"]) == (5, 7)


def test_list_leaves_out_people_who_left(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, ended=datetime.date(2026, 1, 1))
    assert use("companies.list")["items"][0]["peopleCount"] == 0


def test_list_row_open_is_the_soonest_item_with_its_person(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana)
    OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign the quote",
                            at=at("2026-11-11T00:00:00+00:00"), by_kind="user", by_id="1")
    OpenItem.objects.create(organization=org, contact=dana, kind="you", text="Send the mock-ups",
                            at=at("2026-11-10T00:00:00+00:00"), by_kind="user", by_id="1")
    row = use("companies.list")["items"][0]
    assert (row["open"]["text"], row["open"]["person"], row["openCount"], row["openKinds"]) == (
        "Send the mock-ups", "Dana Whitfield", 2, ["you", "them"]
    )


def test_list_row_open_of_the_company_itself_has_no_person(use, org, juniper):
    OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign the quote",
                            at=timezone.now(), by_kind="user", by_id="1")
    assert use("companies.list")["items"][0]["open"]["person"] is None


def test_list_leaves_out_closed_items(use, org, juniper):
    OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                            by_kind="user", by_id="1", closed_at=timezone.now())
    row = use("companies.list")["items"][0]
    assert (row["open"], row["openCount"]) == (None, 0)


def test_list_label_matches_a_whole_label_in_any_case(use, org, juniper):
    CompanyFactory(organization=org, name="Leadership Co", labels=["Leadership"])
    assert [r["name"] for r in use("companies.list", label="lead")["items"]] == ["Juniper Dental"]


@pytest.mark.parametrize("query", ["junip", "JUNIPERDENTAL.test"])
def test_list_query_matches_name_or_domain(use, org, juniper, query):
    CompanyFactory(organization=org, name="Ortiz Bakery", domains=["ortizbakery.test"])
    assert [r["name"] for r in use("companies.list", query=query)["items"]] == ["Juniper Dental"]


def test_list_open_filter_finds_companies_with_that_kind_open_on_them_or_their_people(use, org, juniper, dana):
    ortiz = CompanyFactory(organization=org, name="Ortiz Bakery")
    CompanyFactory(organization=org, name="Quiet Co")
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana)
    OpenItem.objects.create(organization=org, contact=dana, kind="follow_up", text="Chase", at=timezone.now(),
                            by_kind="user", by_id="1")
    OpenItem.objects.create(organization=org, company=ortiz, kind="follow_up", text="Chase", at=timezone.now(),
                            by_kind="user", by_id="1")
    OpenItem.objects.create(organization=org, company=juniper, kind="you", text="x", at=timezone.now(),
                            by_kind="user", by_id="1")
    names = [r["name"] for r in use("companies.list", open="follow_up")["items"]]
    assert names == ["Juniper Dental", "Ortiz Bakery"]


def test_list_quiet_days_finds_companies_without_a_recent_conversation(use, org, juniper, entry):
    ortiz = CompanyFactory(organization=org, name="Ortiz Bakery")
    never = CompanyFactory(organization=org, name="Never Co")
    entry(juniper, at=timezone.now() - datetime.timedelta(days=2))
    entry(ortiz, at=timezone.now() - datetime.timedelta(days=40))
    names = [r["name"] for r in use("companies.list", quietDays=30)["items"]]
    assert names == [never.name, "Ortiz Bakery"]


def test_list_quiet_days_ignores_entries_taken_off(use, org, juniper, entry):
    entry(juniper, at=timezone.now(), removed_at=timezone.now())
    assert [r["name"] for r in use("companies.list", quietDays=30)["items"]] == ["Juniper Dental"]


@pytest.mark.parametrize("by", ["name", "id"])
def test_list_handled_by_takes_an_agent_name_or_id(use, org, agent, juniper, by):
    juniper.handler = agent
    juniper.save()
    CompanyFactory(organization=org, name="Ortiz Bakery")
    ref = "client DESK" if by == "name" else str(agent.id)
    assert [r["name"] for r in use("companies.list", handledBy=ref)["items"]] == ["Juniper Dental"]


def test_list_handled_by_an_unknown_agent_is_bad_input(use, juniper):
    assert bad(use("companies.list", handledBy="Nobody"), "handledBy")


def test_list_pages_by_fifty_with_next_offset_and_total(use, org):
    Company.objects.bulk_create([Company(organization=org, name=f"Co {i:02}") for i in range(52)])
    first = use("companies.list")
    second = use("companies.list", offset=first["nextOffset"])
    assert (len(first["items"]), first["nextOffset"], first["total"], len(second["items"]), second["nextOffset"]) == (
        50, 50, 52, 2, None
    )


def test_list_shows_only_this_workspaces_companies(use, juniper, other):
    assert [r["name"] for r in use("companies.list")["items"]] == ["Juniper Dental"]


# --- read -------------------------------------------------------------------------------------------------


def test_read_gives_the_company_record(use, org, agent, juniper, dana):
    juniper.handler, juniper.details, juniper.website = agent, {"Terms": "Net 30"}, "https://juniperdental.test"
    juniper.save()
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, role="Practice manager",
                                 since=datetime.date(2025, 3, 1))
    out = use("companies.read", companyId=str(juniper.id))
    person = out["people"][0]
    assert (out["name"], out["website"], out["details"], out["handler"], out["listed"], out["files"]) == (
        "Juniper Dental", "https://juniperdental.test", {"Terms": "Net 30"}, "Client desk", None, []
    ) and (person["name"], person["emails"], person["role"], person["since"], person["ended"]) == (
        "Dana Whitfield", ["dana@juniperdental.test"], "Practice manager", "2025-03-01", None
    )


def test_read_gives_open_items_of_the_company_and_of_each_person(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana)
    OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                            by_kind="user", by_id="1")
    OpenItem.objects.create(organization=org, contact=dana, kind="you", text="Call back", at=timezone.now(),
                            by_kind="user", by_id="1")
    out = use("companies.read", companyId=str(juniper.id))
    assert ([i["text"] for i in out["open"]], [i["text"] for i in out["people"][0]["open"]]) == (
        ["Sign"], ["Call back"]
    )


def test_read_gives_the_newest_twenty_entries_on_the_timeline(use, juniper, entry):
    base = at("2026-10-01T09:00:00+00:00")
    for i in range(22):
        entry(juniper, title=f"Call {i}", at=base + datetime.timedelta(days=i))
    entry(juniper, title="Taken off", at=base + datetime.timedelta(days=30), removed_at=timezone.now())
    out = use("companies.read", companyId=str(juniper.id))
    titles = [e["title"] for e in out["timeline"]]
    assert (len(titles), titles[0], titles[-1], out["counts"]["timeline"]) == (20, "Call 21", "Call 2", 22)


def test_read_known_is_the_earliest_conversation_and_last_the_latest(use, juniper, entry):
    entry(juniper, at=at("2024-05-01T12:00:00+00:00"))
    entry(juniper, at=at("2026-11-10T10:12:00+00:00"), thread="x")
    out = use("companies.read", companyId=str(juniper.id))
    assert (out["known"], out["last"]) == ("2024-05-01T12:00:00Z", "2026-11-10T10:12:00Z")


def test_read_known_is_when_it_was_added_when_it_has_no_conversation(use, juniper):
    out = use("companies.read", companyId=str(juniper.id))
    assert (out["known"], out["last"]) == (out["createdAt"], None)


def test_read_counts_projects_and_docs_of_its_people(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana)
    rosa = ContactFactory(organization=org)
    CompanyPerson.objects.create(organization=org, company=juniper, contact=rosa)
    project = ProjectFactory(organization=org)
    DocFactory(organization=org, project=project)
    DocFactory(organization=org, project=project)
    ProjectLink.objects.create(organization=org, project=project, contact=dana)
    ProjectLink.objects.create(organization=org, project=project, contact=rosa)
    ProjectLink.objects.create(organization=org, project=ProjectFactory(organization=org), contact=rosa)
    counts = use("companies.read", companyId=str(juniper.id))["counts"]
    assert counts == {"timeline": 0, "projects": 2, "docs": 2, "files": 0}


# --- create -----------------------------------------------------------------------------------------------


def test_create_adds_the_company_and_returns_its_record(use, org):
    out = use("companies.create", name="Juniper Dental", website="https://juniperdental.test",
              domains=["JuniperDental.test"], labels=["Lead"])
    company = Company.objects.get(organization=org)
    assert (out["id"], out["name"], out["website"], out["domains"], out["labels"], out["handler"]) == (
        str(company.id), "Juniper Dental", "https://juniperdental.test", ["juniperdental.test"], ["Lead"], None
    )


def test_create_is_listed_on_home_in_a_sentence(use):
    use("companies.create", name="Juniper Dental")
    change = change_of("companies.create")
    assert (change.sentence, change.listing) == ("added Juniper Dental to Companies", "home")


def test_create_writes_created_on_the_companys_log(use, org):
    out = use("companies.create", name="Juniper Dental")
    assert log_of(Company.objects.get(id=out["id"]), "created").count() == 1


@pytest.mark.parametrize("by", ["name", "id"])
def test_create_takes_the_handler_by_name_or_id(use, agent, by):
    out = use("companies.create", name="Juniper Dental", handler="Client desk" if by == "name" else str(agent.id))
    assert Company.objects.get(id=out["id"]).handler == agent


def test_create_with_an_unknown_handler_is_bad_input_and_makes_nothing(use, org):
    out = use("companies.create", name="Juniper Dental", handler="Proposal writer")
    assert bad(out, "handler") and not Company.objects.filter(organization=org).exists()


def test_create_links_the_people_with_their_roles(use, org, dana):
    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    out = use("companies.create", name="Juniper Dental",
              people=[{"contactId": str(dana.id), "role": "Practice manager"}, {"contactId": str(rosa.id)}])
    assert [(p["name"], p["role"]) for p in out["people"]] == [("Dana Whitfield", "Practice manager"),
                                                                 ("Rosa Ortiz", None)]


def test_create_with_someone_not_in_contacts_is_not_found_and_makes_nothing(use, org, dana):
    out = use("companies.create", name="Juniper Dental",
              people=[{"contactId": str(dana.id)}, {"contactId": str(uuid.uuid4())}])
    assert out["error"] == "not_found" and out["message"].startswith("people[1].contactId:")
    assert not Company.objects.filter(organization=org).exists()


@pytest.mark.parametrize("given", [{"name": "juniper DENTAL"}, {"name": "JD", "domains": ["JUNIPERDENTAL.test"]}])
def test_create_of_a_company_there_already_names_it_and_makes_nothing(use, org, juniper, given):
    out = use("companies.create", **given)
    assert set(out) == {"message"} and "Juniper Dental" in out["message"] and str(juniper.id) in out["message"]
    assert Company.objects.filter(organization=org).count() == 1


def test_create_of_a_company_there_already_records_no_change(use, juniper):
    use("companies.create", name="Juniper Dental")
    assert change_of("companies.create") is None


def test_create_with_a_blank_name_is_bad_input(use):
    assert bad(use("companies.create", name="   "), "name")


def test_create_alike_name_in_another_workspace_is_no_duplicate(use, other):
    out = use("companies.create", name="Elsewhere Ltd")
    assert out["name"] == "Elsewhere Ltd"


# --- update -----------------------------------------------------------------------------------------------


def test_update_changes_name_domains_and_labels(use, juniper):
    out = use("companies.update", companyId=str(juniper.id), name="Juniper Dental Group",
              domains=["juniperdental.test", "jdg.test"], labels=["Client"], why="Sam said they signed")
    assert (out["name"], out["domains"], out["labels"]) == (
        "Juniper Dental Group", ["juniperdental.test", "jdg.test"], ["Client"]
    )
    assert Change.objects.get(tool="companies.update").sentence == (
        "changed Juniper Dental's name to Juniper Dental Group, domains to juniperdental.test, jdg.test and labels "
        "to Client: Sam said they signed")  # the new values on Home's line, not only which fields changed


def test_update_merges_details_and_null_clears_one(use, juniper):
    juniper.details = {"Terms": "Net 30", "PO": "Needed"}
    juniper.save()
    out = use("companies.update", companyId=str(juniper.id), details={"Terms": None, "Billing": "Quarterly"},
              why="Sam said terms were dropped")
    assert out["details"] == {"PO": "Needed", "Billing": "Quarterly"}
    assert Change.objects.get(tool="companies.update").sentence == (
        "changed Juniper Dental's Terms (cleared) and Billing to Quarterly: Sam said terms were dropped")


@pytest.mark.parametrize("by", ["name", "id"])
def test_update_sets_the_handler_by_name_or_id(use, org, juniper, by):
    bookkeeper = AgentFactory(organization=org, name="Bookkeeper")
    ref = "bookkeeper" if by == "name" else str(bookkeeper.id)
    out = use("companies.update", companyId=str(juniper.id), handler=ref, why="Sam moved billing clients")
    assert out["handler"] == "Bookkeeper"


def test_update_null_handler_clears_it(use, agent, juniper):
    juniper.handler = agent
    juniper.save()
    out = use("companies.update", companyId=str(juniper.id), handler=None, why="Sam handles them himself")
    assert out["handler"] is None


def test_update_with_an_unknown_handler_is_bad_input(use, juniper):
    assert bad(use("companies.update", companyId=str(juniper.id), handler="Nobody", why="x"), "handler")


def test_update_logs_before_after_and_why_on_the_company(use, juniper):
    use("companies.update", companyId=str(juniper.id), labels=["Client"], why="They signed")
    entry = log_of(juniper, "updated").get()
    assert (entry.before, entry.after, entry.why) == ({"labels": ["Lead"]}, {"labels": ["Client"]}, "They signed")


def test_update_shows_on_the_record_linked_to_its_change(use, juniper):
    use("companies.update", companyId=str(juniper.id), labels=["Client"], why="They signed")
    change = change_of("companies.update")
    assert (change.listing, log_of(juniper, "updated").get().change) == ("record", change)


def test_update_that_changes_nothing_records_no_change(use, juniper):
    out = use("companies.update", companyId=str(juniper.id), labels=["Lead"], why="Same")
    assert out["labels"] == ["Lead"] and change_of("companies.update") is None


def test_update_replaces_names_what_it_overwrites(ctx, org, agent, juniper):
    juniper.details, juniper.handler = {"Terms": "Net 30"}, agent
    juniper.save()
    tool = registry.get_tool("companies.update")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "details": {"Terms": None, "New": "x"},
                                     "labels": ["Client"], "handler": None, "why": "Sam said"})
    assert tool.replaces(ctx, inp) == {
        "name": "Juniper Dental", "labels": ["Lead"], "handler": "Client desk", "details": {"Terms": "Net 30"}
    }


def test_update_replaces_nothing_when_it_only_adds(ctx, juniper):
    tool = registry.get_tool("companies.update")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "details": {"Terms": "Net 30"},
                                     "labels": ["Lead", "Client"], "handler": "Client desk", "why": "Sam said"})
    assert tool.replaces(ctx, inp) is None


def test_update_replaces_the_name_on_a_rename(ctx, juniper):
    tool = registry.get_tool("companies.update")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "name": "JD Group", "why": "Sam said"})
    assert tool.replaces(ctx, inp) == {"name": "Juniper Dental"}


# --- about ------------------------------------------------------------------------------------------------


ABOUT = {
    "text": "Juniper Dental runs two clinics [1], opening a third [2].",
    "facts": [{"label": "Founded", "value": "2012"}],
    "lately": [{"date": "2026-10-02", "text": "Second clinic announced", "source": 2},
               {"date": "2026-09-01", "text": "New hires"}],
    "sources": [{"title": "Juniper Dental", "url": "https://juniperdental.test"},
                {"title": "Local news", "url": "https://news.test/juniper"}],
}


def test_about_replaces_the_about_with_who_and_when(use, ctx, juniper):
    out = use("companies.about", companyId=str(juniper.id), **ABOUT)
    about = out["about"]
    assert {k: about[k] for k in ABOUT} == ABOUT and about["by"] == ctx.actor.by() and about["at"].endswith("Z")


def test_about_logs_the_old_and_new_about(use, juniper):
    juniper.about = {"text": "Old"}
    juniper.save()
    use("companies.about", companyId=str(juniper.id), **ABOUT)
    entry = log_of(juniper, "about").get()
    assert (entry.before, entry.after["text"], entry.change) == (
        {"text": "Old"}, ABOUT["text"], change_of("companies.about")
    )


def test_about_lately_source_must_be_one_of_the_sources(use, juniper):
    lately = [{"date": "2026-10-02", "text": "x", "source": 1}, {"date": "2026-10-03", "text": "y", "source": 3}]
    out = use("companies.about", companyId=str(juniper.id), **(ABOUT | {"lately": lately}))
    assert bad(out, "lately[1].source") and Company.objects.get(id=juniper.id).about is None


def test_about_text_must_cite_only_its_sources(use, juniper):
    out = use("companies.about", companyId=str(juniper.id), **(ABOUT | {"text": "Two clinics [3]."}))
    assert bad(out, "text")


def test_about_replaces_names_the_about_there(ctx, juniper):
    juniper.about = {"text": "Old about"}
    juniper.save()
    tool = registry.get_tool("companies.about")
    inp = tool.input.model_validate({"companyId": str(juniper.id), **ABOUT})
    assert tool.replaces(ctx, inp) == {"name": "Juniper Dental", "about": "Old about"}


def test_about_replaces_nothing_when_there_was_none(ctx, juniper):
    tool = registry.get_tool("companies.about")
    assert tool.replaces(ctx, tool.input.model_validate({"companyId": str(juniper.id), **ABOUT})) is None


# --- timeline ---------------------------------------------------------------------------------------------


def _thirty(juniper, entry):
    base = at("2026-10-01T09:00:00+00:00")
    for i in range(30):
        entry(juniper, title=f"Mail {i}", at=base + datetime.timedelta(hours=i), kind="mail" if i % 3 else "call")


def test_timeline_gives_twenty_newest_first_with_next_before(use, juniper, entry):
    _thirty(juniper, entry)
    out = use("companies.timeline", companyId=str(juniper.id))
    titles = [i["title"] for i in out["items"]]
    assert (len(titles), titles[0], titles[-1], out["nextBefore"], out["total"]) == (
        20, "Mail 29", "Mail 10", out["items"][-1]["at"], 30
    )


def test_timeline_before_gives_entries_strictly_older(use, juniper, entry):
    _thirty(juniper, entry)
    first = use("companies.timeline", companyId=str(juniper.id))
    out = use("companies.timeline", companyId=str(juniper.id), before=first["nextBefore"])
    assert ([i["title"] for i in out["items"]], out["nextBefore"]) == ([f"Mail {i}" for i in range(9, -1, -1)], None)


def test_timeline_page_ends_before_a_run_of_entries_at_one_time(use, juniper, entry):
    base = at("2026-10-01T09:00:00+00:00")
    for i in range(19):
        entry(juniper, title=f"Early {i}", at=base + datetime.timedelta(hours=i + 10))
    for i in range(3):
        entry(juniper, title=f"Same {i}", at=base)
    first = use("companies.timeline", companyId=str(juniper.id))
    second = use("companies.timeline", companyId=str(juniper.id), before=first["nextBefore"])
    assert (len(first["items"]), len(second["items"])) == (19, 3)


def test_timeline_kind_filters_and_counts_are_by_kind(use, juniper, entry):
    _thirty(juniper, entry)
    out = use("companies.timeline", companyId=str(juniper.id), kind="call")
    assert ({i["kind"] for i in out["items"]}, out["total"], out["counts"]) == (
        {"call"}, 10, {"note": 0, "mail": 20, "invoice": 0, "meeting": 0, "call": 10}
    )


def test_timeline_contact_gives_entries_with_that_person(use, org, juniper, dana, entry):
    entry(juniper, title="With Dana", people=[{"name": "Dana Whitfield", "id": str(dana.id)}])
    entry(juniper, title="Without", people=[{"name": "x@y.test"}], thread="2")
    out = use("companies.timeline", companyId=str(juniper.id), contactId=str(dana.id))
    assert [i["title"] for i in out["items"]] == ["With Dana"]


@pytest.mark.parametrize("query", ["QUOTE", "signage"])
def test_timeline_query_matches_title_or_summary(use, juniper, entry, query):
    entry(juniper, title="Quote request", summary="About signage")
    entry(juniper, title="Other", summary="Nothing", thread="2")
    out = use("companies.timeline", companyId=str(juniper.id), query=query)
    assert [i["title"] for i in out["items"]] == ["Quote request"]


def test_timeline_leaves_out_entries_taken_off(use, juniper, entry):
    entry(juniper, removed_at=timezone.now())
    assert use("companies.timeline", companyId=str(juniper.id))["total"] == 0


def test_timeline_before_that_is_no_time_is_bad_input(use, juniper):
    assert bad(use("companies.timeline", companyId=str(juniper.id), before="last tuesday"), "before")


def test_timeline_entry_gives_every_field_that_is_set(use, juniper, entry):
    entry(juniper, summary="S", count=3, minutes=30, link="https://x.test", thread="t", state="overdue",
          files=[{"name": "Quote.pdf"}], people=[{"name": "a@b.test"}], ours=[{"kind": "user", "id": "1"}])
    item = use("companies.timeline", companyId=str(juniper.id))["items"][0]
    assert set(item) == {"id", "kind", "title", "at", "people", "ours", "by", "updatedAt", "summary", "count",
                         "minutes", "link", "thread", "files", "state"}


def test_timeline_entry_leaves_out_fields_that_are_not_set(use, juniper, entry):
    entry(juniper)
    item = use("companies.timeline", companyId=str(juniper.id))["items"][0]
    assert set(item) == {"id", "kind", "title", "at", "people", "ours", "by", "updatedAt"}


# --- record -----------------------------------------------------------------------------------------------


def _record(use, company, **fields):
    given = {"kind": "mail", "title": "Rebrand quote request", "at": "2026-11-10T10:12:00Z"} | fields
    return use("companies.record", companyId=str(company.id), **given)


def test_record_adds_an_entry(use, ctx, juniper):
    out = _record(use, juniper, summary="Dana asked for a logo.", thread="7c41e2d0:19a2", state="waiting_you")
    e = out["entry"]
    assert (out["updated"], e["kind"], e["title"], e["at"], e["summary"], e["thread"], e["state"], e["by"]) == (
        False, "mail", "Rebrand quote request", "2026-11-10T10:12:00Z", "Dana asked for a logo.", "7c41e2d0:19a2",
        "waiting_you", ctx.actor.by()
    )


def test_record_resolves_people_by_id_or_address(use, org, juniper, dana):
    rosa = ContactFactory(organization=org, name="Rosa Ortiz")
    out = _record(use, juniper, people=["DANA@juniperdental.test", str(rosa.id), "new@juniperdental.test"])
    assert out["entry"]["people"] == [
        {"name": "Dana Whitfield", "id": str(dana.id)}, {"name": "Rosa Ortiz", "id": str(rosa.id)},
        {"name": "new@juniperdental.test"},
    ]


def test_record_with_an_id_that_is_no_contact_is_not_found(use, juniper, other):
    out = _record(use, juniper, people=[str(other["contact"].id)])
    assert out["error"] == "not_found" and out["message"].startswith("people[0]:")


def test_record_leaves_out_blank_people(use, juniper):
    assert _record(use, juniper, people=[" ", "a@b.test"])["entry"]["people"] == [{"name": "a@b.test"}]


def test_record_ours_are_agents_by_id_or_name(use, org, agent, juniper):
    bookkeeper = AgentFactory(organization=org, name="Bookkeeper")
    out = _record(use, juniper, ours=[str(agent.id), "bookkeeper"])
    assert out["entry"]["ours"] == [{"kind": "agent", "id": str(agent.id)}, {"kind": "agent", "id": str(bookkeeper.id)}]


def test_record_without_ours_is_the_owner(use, org, juniper):
    assert _record(use, juniper)["entry"]["ours"] == [{"kind": "user", "id": str(org.owner_id)}]


def test_record_ours_that_is_no_agent_is_bad_input(use, juniper):
    assert bad(_record(use, juniper, ours=["Client desk", "Sam"]), "ours[1]")


def test_record_time_without_offset_is_the_owners_time(use, juniper):
    # The workspace's time zone is America/New_York: 09:02 there is 14:02 UTC in November.
    assert _record(use, juniper, at="2026-11-10T09:02:00")["entry"]["at"] == "2026-11-10T14:02:00Z"


def test_record_again_with_the_entry_id_updates_it(use, juniper):
    first = _record(use, juniper)["entry"]
    out = _record(use, juniper, entryId=first["id"], title="Rebrand quote request (logo, signage)")
    assert (out["updated"], out["entry"]["id"], TimelineEntry.objects.count()) == (True, first["id"], 1)


@pytest.mark.parametrize("same", [{"thread": "7c41e2d0:19a2"}, {"link": "https://app.qbo.test/invoice/1042"}])
def test_record_again_with_the_same_thread_or_link_updates_its_entry(use, juniper, same):
    first = _record(use, juniper, **same)["entry"]
    out = _record(use, juniper, title="Quote sent", at="2026-11-11T10:00:00Z", **same)
    assert (out["updated"], out["entry"]["id"], out["entry"]["title"], TimelineEntry.objects.count()) == (
        True, first["id"], "Quote sent", 1
    )


def test_record_of_the_same_thread_at_another_company_adds_an_entry(use, org, juniper):
    _record(use, CompanyFactory(organization=org), thread="t1")
    assert _record(use, juniper, thread="t1")["updated"] is False


def test_record_again_keeps_what_is_left_out(use, juniper):
    first = _record(use, juniper, summary="Asked for a quote", count=2, thread="t1")["entry"]
    out = _record(use, juniper, entryId=first["id"])["entry"]
    assert (out["summary"], out["count"]) == ("Asked for a quote", 2)


def test_record_again_with_state_null_clears_it(use, juniper):
    first = _record(use, juniper, state="overdue")["entry"]
    assert "state" not in _record(use, juniper, entryId=first["id"], state=None)["entry"]


def test_record_of_the_same_thread_gathers_people_and_who_wrote(use, org, agent, juniper, dana):
    _record(use, juniper, thread="t1", people=["dana@juniperdental.test"], ours=["Client desk"])
    out = _record(use, juniper, thread="t1", people=["rosa@juniperdental.test"])["entry"]
    assert (out["people"], out["ours"]) == (
        [{"name": "Dana Whitfield", "id": str(dana.id)}, {"name": "rosa@juniperdental.test"}],
        [{"kind": "agent", "id": str(agent.id)}, {"kind": "user", "id": str(org.owner_id)}],
    )


def test_record_fix_by_entry_id_replaces_people(use, juniper):
    first = _record(use, juniper, people=["wrong@juniperdental.test"])["entry"]
    out = _record(use, juniper, entryId=first["id"], people=["right@juniperdental.test"])["entry"]
    assert out["people"] == [{"name": "right@juniperdental.test"}]


def test_record_with_an_entry_id_not_on_the_company_is_not_found(use, org, juniper, entry):
    theirs = entry(CompanyFactory(organization=org))
    out = _record(use, juniper, entryId=str(theirs.id))
    assert out["error"] == "not_found" and out["message"].startswith("entryId:")


def test_record_with_an_entry_id_that_is_no_id_is_not_found(use, juniper):
    assert _record(use, juniper, entryId="ent_4c8e21b7")["error"] == "not_found"


def test_record_logs_on_the_company_linked_to_its_change(use, juniper):
    _record(use, juniper)
    entry = log_of(juniper, "recorded").get()
    assert (entry.change, change_of("companies.record").listing) == (change_of("companies.record"), "record")


def test_record_made_here_names_the_entry_as_the_check_reads_it(use, ctx, juniper):
    out = _record(use, juniper)
    assert f"timeline:{juniper.id}:{out['entry']['id']}" in made_here(ctx)


def test_record_again_as_it_is_records_no_change(use, juniper):
    first = _record(use, juniper, thread="t1")
    again = _record(use, juniper, thread="t1")
    assert (again["entry"] == first["entry"], Change.objects.filter(tool="companies.record").count()) == (True, 1)


# --- unrecord ---------------------------------------------------------------------------------------------


def test_unrecord_takes_the_entry_off_the_timeline(use, juniper, entry):
    e = entry(juniper)
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    assert use("companies.read", companyId=str(juniper.id))["timeline"] == []


def test_unrecord_keeps_the_row_for_undo(use, juniper, entry):
    e = entry(juniper)
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    assert TimelineEntry.objects.get(id=e.id).removed_at is not None


def test_unrecord_history_id_is_its_log_entry(use, juniper, entry):
    e = entry(juniper)
    out = use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    assert out == {"historyId": str(log_of(juniper, "unrecorded").get().id)}


def test_unrecord_undo_puts_the_entry_back_as_it_was(use, ctx, juniper, entry):
    e = entry(juniper, summary="S", people=[{"name": "a@b.test"}], thread="t1", state="overdue")
    before = use("companies.timeline", companyId=str(juniper.id))["items"][0]
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    change_undo(org=ctx.org, change_id=change_of("companies.unrecord").id, actor=ctx.actor)
    after = use("companies.timeline", companyId=str(juniper.id))["items"][0]
    assert {k: v for k, v in after.items() if k != "updatedAt"} == {
        k: v for k, v in before.items() if k != "updatedAt"
    }


def test_unrecord_undo_is_recorded_and_logged(use, ctx, juniper, entry):
    e = entry(juniper)
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    change = change_of("companies.unrecord")
    undo = change_undo(org=ctx.org, change_id=change.id, actor=ctx.actor)
    change.refresh_from_db()
    assert (undo.undoes, change.undone_by, log_of(juniper, "restored").count()) == (change, undo, 1)


def test_unrecord_undo_is_changed_when_the_conversation_was_recorded_again(use, ctx, juniper, entry):
    e = entry(juniper, thread="t1")
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    _record(use, juniper, thread="t1")
    with pytest.raises(Exception) as raised:
        change_undo(org=ctx.org, change_id=change_of("companies.unrecord").id, actor=ctx.actor)
    assert getattr(raised.value, "kind", None) == "changed" and TimelineEntry.objects.get(id=e.id).removed_at


def test_unrecord_undo_is_changed_when_the_entry_was_edited_since(use, ctx, juniper, entry):
    e = entry(juniper)
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    edited = TimelineEntry.objects.get(id=e.id)
    edited.title = "Edited"
    edited.save()
    with pytest.raises(Exception) as raised:
        change_undo(org=ctx.org, change_id=change_of("companies.unrecord").id, actor=ctx.actor)
    assert getattr(raised.value, "kind", None) == "changed"


def test_unrecord_of_an_entry_taken_off_already_is_not_found(use, juniper, entry):
    e = entry(juniper, removed_at=timezone.now())
    assert use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))["error"] == "not_found"


def test_unrecord_of_another_companys_entry_is_not_found(use, org, juniper, entry):
    e = entry(CompanyFactory(organization=org))
    assert use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))["error"] == "not_found"


def test_unrecord_the_owner_did_not_ask_for_is_held_and_takes_nothing_off(owner_says, juniper, entry):
    # Not `use`: its workspace has the check turned off.
    e = entry(juniper)
    out = use_tool(owner_says("Tidy up the timeline"), "companies.unrecord",
                   {"companyId": str(juniper.id), "entryId": str(e.id)})
    assert "not_done_yet" in out and TimelineEntry.objects.get(id=e.id).removed_at is None


def test_unrecord_replaces_names_the_company_and_the_entry(ctx, juniper, entry):
    e = entry(juniper, kind="invoice", title="Invoice 1042 chased")
    tool = registry.get_tool("companies.unrecord")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "entryId": str(e.id)})
    assert tool.replaces(ctx, inp) == {
        "name": "Juniper Dental",
        "entry": {"id": str(e.id), "kind": "invoice", "title": "Invoice 1042 chased", "at": "2026-11-10T10:12:00Z"},
    }


# --- open -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["you", "them"])
def test_open_add_opens_an_item_on_the_company(use, ctx, juniper, kind):
    out = use("companies.open", companyId=str(juniper.id), add={"kind": kind, "text": "Send the quote"})
    item = out["open"][0]
    assert (item["kind"], item["text"], item["by"], item["thread"]) == (kind, "Send the quote", ctx.actor.by(),
                                                                         "thread-1")


def test_open_follow_up_at_a_time_without_offset_is_the_owners_time(use, juniper):
    out = use("companies.open", companyId=str(juniper.id),
              add={"kind": "follow_up", "text": "Paid?", "at": "2026-11-17T09:00:00"})
    assert out["open"][0]["at"] == "2026-11-17T14:00:00Z"


def test_open_follow_up_without_a_time_is_bad_input(use, juniper):
    assert bad(use("companies.open", companyId=str(juniper.id), add={"kind": "follow_up", "text": "Paid?"}), "add.at")


def test_open_done_closes_the_item(use, org, juniper):
    item = OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                                   by_kind="user", by_id="1")
    out = use("companies.open", companyId=str(juniper.id), done=str(item.id))
    item.refresh_from_db()
    assert (out["open"], item.closed_at is not None) == ([], True)


def test_open_add_and_done_together(use, org, juniper):
    item = OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                                   by_kind="user", by_id="1")
    out = use("companies.open", companyId=str(juniper.id), done=str(item.id), add={"kind": "you", "text": "Start"})
    assert [i["text"] for i in out["open"]] == ["Start"]


def test_open_logs_each_on_the_company(use, org, juniper):
    item = OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                                   by_kind="user", by_id="1")
    use("companies.open", companyId=str(juniper.id), done=str(item.id), add={"kind": "you", "text": "Start"})
    assert (log_of(juniper, "closed").count(), log_of(juniper, "opened").count()) == (1, 1)


def test_open_sentence_reads_naturally(use, juniper):
    use("companies.open", companyId=str(juniper.id), add={"kind": "follow_up", "text": "Paid?",
                                                         "at": "2026-11-17T09:00:00Z"})
    assert change_of("companies.open").sentence == "opened a follow-up on Juniper Dental: Paid?"


def test_open_done_of_another_workspaces_item_is_not_found(use, juniper, other):
    out = use("companies.open", companyId=str(juniper.id), done=str(other["item"].id))
    assert out["error"] == "not_found" and out["message"].startswith("done:")


def test_open_done_of_an_unknown_item_is_not_found(use, juniper):
    assert use("companies.open", companyId=str(juniper.id), done="item-1")["error"] == "not_found"


def test_open_with_neither_add_nor_done_is_bad_input(use, juniper):
    assert bad(use("companies.open", companyId=str(juniper.id)), "add")


def test_open_is_checked_only_when_it_closes_an_item(ctx, juniper):
    tool = registry.get_tool("companies.open")
    adding = tool.input.model_validate({"companyId": str(juniper.id), "add": {"kind": "you", "text": "x"}})
    closing = tool.input.model_validate({"companyId": str(juniper.id), "done": str(uuid.uuid4())})
    assert (tool.is_checked(ctx, adding), tool.is_checked(ctx, closing)) == (False, True)


def test_open_replaces_names_the_item_it_closes(ctx, org, juniper):
    item = OpenItem.objects.create(organization=org, company=juniper, kind="them", text="Sign", at=timezone.now(),
                                   by_kind="user", by_id="1")
    tool = registry.get_tool("companies.open")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "done": str(item.id)})
    assert tool.replaces(ctx, inp) == {"name": "Juniper Dental", "open": "Sign"}


# --- context ----------------------------------------------------------------------------------------------


def test_context_sets_it_with_who_and_when(use, ctx, juniper):
    out = use("companies.context", companyId=str(juniper.id), text="Dana signs off quotes.", why="Sam said so")
    assert (out["context"], out["contextBy"], out["contextAt"] is not None, set(out)) == (
        "Dana signs off quotes.", ctx.actor.by(), True,
        {"id", "name", "website", "domains", "context", "contextBy", "contextAt", "owned"},
    )


@pytest.mark.parametrize("handled", [True, False])
def test_context_owned_says_whether_the_caller_handles_the_company(use, org, agent, juniper, handled):
    juniper.handler = agent if handled else AgentFactory(organization=org, name="Bookkeeper")
    juniper.save()
    assert use("companies.context", companyId=str(juniper.id), text="x", why="y")["owned"] is handled


def test_context_is_listed_on_home_in_a_sentence(use, juniper):
    use("companies.context", companyId=str(juniper.id), text="x", why="Sam said so")
    change = change_of("companies.context")
    assert (change.sentence, change.listing) == ("set Juniper Dental's Context: Sam said so", "home")


def test_context_logs_before_after_and_why(use, juniper):
    juniper.context = "Old"
    juniper.save()
    use("companies.context", companyId=str(juniper.id), text="New", why="Sam said so")
    entry = log_of(juniper, "context").get()
    assert (entry.before, entry.after, entry.why) == ("Old", "New", "Sam said so")


def test_context_empty_text_clears_it(use, juniper):
    juniper.context = "Old"
    juniper.save()
    assert use("companies.context", companyId=str(juniper.id), text="", why="Sam said")["context"] is None


def test_context_replaces_names_the_context_there(ctx, juniper):
    juniper.context = "Pays at month end"
    juniper.save()
    tool = registry.get_tool("companies.context")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "text": "x", "why": "y"})
    assert tool.replaces(ctx, inp) == {"name": "Juniper Dental", "context": "Pays at month end"}


def test_context_replaces_nothing_where_there_was_none(ctx, juniper):
    tool = registry.get_tool("companies.context")
    inp = tool.input.model_validate({"companyId": str(juniper.id), "text": "x", "why": "y"})
    assert tool.replaces(ctx, inp) is None


# --- link_person ------------------------------------------------------------------------------------------


def test_link_person_links_with_role_and_dates(use, juniper, dana):
    out = use("companies.link_person", contactId=str(dana.id), companyId=str(juniper.id), role="Practice manager",
              since="2025-03-01", ended="2026-06-30")
    link = CompanyPerson.objects.get(company=juniper, contact=dana)
    assert (out, link.role, link.since, link.ended) == (
        {"contactId": str(dana.id), "companyId": str(juniper.id)}, "Practice manager", datetime.date(2025, 3, 1),
        datetime.date(2026, 6, 30),
    )


def test_link_person_changes_the_link_and_keeps_what_is_left_out(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, role="Manager",
                                 since=datetime.date(2025, 3, 1))
    use("companies.link_person", contactId=str(dana.id), companyId=str(juniper.id), role="Practice manager")
    link = CompanyPerson.objects.get(company=juniper, contact=dana)
    assert (link.role, link.since) == ("Practice manager", datetime.date(2025, 3, 1))


def test_link_person_ended_before_since_is_bad_input(use, juniper, dana):
    out = use("companies.link_person", contactId=str(dana.id), companyId=str(juniper.id), since="2026-01-01",
              ended="2025-01-01")
    assert bad(out, "ended")


def test_link_person_logs_on_the_company(use, juniper, dana):
    use("companies.link_person", contactId=str(dana.id), companyId=str(juniper.id), role="Practice manager")
    entry = log_of(juniper, "linked").get()
    assert (entry.text, entry.change.sentence) == (
        "Linked Dana Whitfield as Practice manager", "linked Dana Whitfield to Juniper Dental as Practice manager"
    )


def test_link_person_as_it_is_records_no_change(use, org, juniper, dana):
    CompanyPerson.objects.create(organization=org, company=juniper, contact=dana, role="Manager")
    use("companies.link_person", contactId=str(dana.id), companyId=str(juniper.id), role="Manager")
    assert change_of("companies.link_person") is None


# --- limits -----------------------------------------------------------------------------------------------

ID = str(uuid.uuid4())
LONG = "x" * 3001


@pytest.mark.parametrize(
    ("tool", "given", "field"),
    [
        ("companies.list", {"label": ""}, "label"),
        ("companies.list", {"label": "x" * 41}, "label"),
        ("companies.list", {"query": "x" * 201}, "query"),
        ("companies.list", {"open": "soon"}, "open"),
        ("companies.list", {"quietDays": -1}, "quietDays"),
        ("companies.list", {"handledBy": ""}, "handledBy"),
        ("companies.list", {"handledBy": "x" * 81}, "handledBy"),
        ("companies.list", {"offset": -1}, "offset"),
        ("companies.read", {"companyId": "juniper"}, "companyId"),
        ("companies.create", {"name": ""}, "name"),
        ("companies.create", {"name": "x" * 201}, "name"),
        ("companies.create", {"name": "J", "website": "x" * 301}, "website"),
        ("companies.create", {"name": "J", "domains": ["d.test"] * 11}, "domains"),
        ("companies.create", {"name": "J", "domains": ["x" * 201]}, "domains[0]"),
        ("companies.create", {"name": "J", "labels": ["l"] * 21}, "labels"),
        ("companies.create", {"name": "J", "labels": ["x" * 41]}, "labels[0]"),
        ("companies.create", {"name": "J", "handler": "x" * 81}, "handler"),
        ("companies.create", {"name": "J", "people": [{"contactId": ID}] * 201}, "people"),
        ("companies.create", {"name": "J", "people": [{"contactId": ID, "role": "x" * 201}]}, "people[0].role"),
        ("companies.create", {"name": "J", "people": [{"role": "Owner"}]}, "people[0].contactId"),
        ("companies.update", {"companyId": ID, "why": ""}, "why"),
        ("companies.update", {"companyId": ID}, "why"),
        ("companies.update", {"companyId": ID, "why": "x" * 2001}, "why"),
        ("companies.update", {"companyId": ID, "why": "w", "name": "x" * 201}, "name"),
        ("companies.update", {"companyId": ID, "why": "w", "domains": ["d"] * 11}, "domains"),
        ("companies.update", {"companyId": ID, "why": "w", "labels": ["x" * 41]}, "labels[0]"),
        ("companies.update", {"companyId": ID, "why": "w", "handler": ""}, "handler"),
        ("companies.update", {"companyId": ID, "why": "w", "details": {"Terms": 30}}, "details.Terms"),
        ("companies.about", {"companyId": ID, "text": "", "sources": ABOUT["sources"]}, "text"),
        ("companies.about", {"companyId": ID, "text": LONG, "sources": ABOUT["sources"]}, "text"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": []}, "sources"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"] * 11}, "sources"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": [{"title": "t", "url": "ftp://x"}]},
         "sources[0].url"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": [{"title": "x" * 201, "url": "https://x.test"}]},
         "sources[0].title"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "facts": [{"label": "l", "value": "v"}] * 13}, "facts"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "facts": [{"label": "x" * 41, "value": "v"}]}, "facts[0].label"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "facts": [{"label": "l", "value": "x" * 201}]}, "facts[0].value"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "lately": [{"date": "2026-01-01", "text": "t"}] * 11}, "lately"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "lately": [{"date": "soon", "text": "t"}]}, "lately[0].date"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "lately": [{"date": "2026-01-01", "text": "x" * 301}]}, "lately[0].text"),
        ("companies.about", {"companyId": ID, "text": "t", "sources": ABOUT["sources"],
                             "lately": [{"date": "2026-01-01", "text": "t", "source": 0}]}, "lately[0].source"),
        ("companies.timeline", {"companyId": ID, "kind": "sms"}, "kind"),
        ("companies.timeline", {"companyId": ID, "contactId": "dana"}, "contactId"),
        ("companies.timeline", {"companyId": ID, "query": "x" * 201}, "query"),
        ("companies.record", {"companyId": ID, "kind": "sms", "title": "t", "at": "2026-11-10T10:00:00Z"}, "kind"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "", "at": "2026-11-10T10:00:00Z"}, "title"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "x" * 201, "at": "2026-11-10T10:00:00Z"},
         "title"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "Tuesday"}, "at"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t"}, "at"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "summary": "x" * 1001}, "summary"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "people": ["a@b.test"] * 21}, "people"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "people": ["x" * 255]}, "people[0]"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "ours": ["a"] * 11}, "ours"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "ours": ["x" * 81]}, "ours[0]"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "count": 0}, "count"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "minutes": 0}, "minutes"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "link": "qbo invoice"}, "link"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "files": [{"name": "f"}] * 21}, "files"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "files": [{"name": "x" * 201}]}, "files[0].name"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "files": [{"name": "f", "link": "drive"}]}, "files[0].link"),
        ("companies.record", {"companyId": ID, "kind": "mail", "title": "t", "at": "2026-11-10T10:00:00Z",
                              "state": "late"}, "state"),
        ("companies.unrecord", {"companyId": ID, "entryId": ""}, "entryId"),
        ("companies.open", {"companyId": ID, "add": {"kind": "soon", "text": "t"}}, "add.kind"),
        ("companies.open", {"companyId": ID, "add": {"kind": "you", "text": ""}}, "add.text"),
        ("companies.open", {"companyId": ID, "add": {"kind": "you", "text": "x" * 501}}, "add.text"),
        ("companies.open", {"companyId": ID, "add": {"kind": "you", "text": "t", "at": "soon"}}, "add.at"),
        ("companies.context", {"companyId": ID, "text": "x" * 1501, "why": "w"}, "text"),
        ("companies.context", {"companyId": ID, "text": "t", "why": ""}, "why"),
        ("companies.context", {"companyId": ID, "text": "t", "why": "x" * 2001}, "why"),
        ("companies.link_person", {"companyId": ID, "contactId": ID, "role": ""}, "role"),
        ("companies.link_person", {"companyId": ID, "contactId": ID, "role": "x" * 201}, "role"),
        ("companies.link_person", {"companyId": ID, "contactId": ID, "since": "March"}, "since"),
        ("companies.link_person", {"companyId": ID, "contactId": ID, "ended": "2026-13-01"}, "ended"),
        ("companies.link_person", {"companyId": ID}, "contactId"),
    ],
)
def test_limits_are_bad_input_naming_the_field(use, tool, given, field):
    assert bad(use(tool, **given), field)


# --- another workspace ------------------------------------------------------------------------------------


def _with_other(other, juniper, dana):
    theirs = {k: str(v.id) for k, v in other.items()}
    return [
        ("companies.read", {"companyId": theirs["company"]}),
        ("companies.update", {"companyId": theirs["company"], "name": "Mine now", "why": "w"}),
        ("companies.about", {"companyId": theirs["company"], **ABOUT}),
        ("companies.timeline", {"companyId": theirs["company"]}),
        ("companies.timeline", {"companyId": str(juniper.id), "contactId": theirs["contact"]}),
        ("companies.record", {"companyId": theirs["company"], "kind": "note", "title": "t", "at": "2026-11-10T10:00Z"}),
        ("companies.record", {"companyId": str(juniper.id), "entryId": theirs["entry"], "kind": "note", "title": "t",
                              "at": "2026-11-10T10:00:00Z"}),
        ("companies.unrecord", {"companyId": theirs["company"], "entryId": theirs["entry"]}),
        ("companies.unrecord", {"companyId": str(juniper.id), "entryId": theirs["entry"]}),
        ("companies.open", {"companyId": theirs["company"], "add": {"kind": "you", "text": "t"}}),
        ("companies.open", {"companyId": str(juniper.id), "done": theirs["item"]}),
        ("companies.context", {"companyId": theirs["company"], "text": "t", "why": "w"}),
        ("companies.link_person", {"companyId": theirs["company"], "contactId": str(dana.id)}),
        ("companies.link_person", {"companyId": str(juniper.id), "contactId": theirs["contact"]}),
        ("companies.create", {"name": "New Co", "people": [{"contactId": theirs["contact"]}]}),
    ]


def test_every_tool_given_another_workspaces_ids_is_not_found_and_changes_nothing(use, juniper, dana, other):
    outs = {f"{name} {sorted(given)}": use(name, **given) for name, given in _with_other(other, juniper, dana)}
    assert {k: v.get("error") for k, v in outs.items()} == {k: "not_found" for k in outs}
    other["company"].refresh_from_db()
    other["item"].refresh_from_db()
    other["entry"].refresh_from_db()
    assert (other["company"].name, other["item"].closed_at, other["entry"].removed_at, Change.objects.count()) == (
        "Elsewhere Ltd", None, None, 0
    )


def test_list_handled_by_another_workspaces_agent_is_bad_input(use, other_org):
    theirs = AgentFactory(organization=other_org, name="Their agent")
    assert bad(use("companies.list", handledBy=str(theirs.id)), "handledBy")


def test_record_ours_of_another_workspaces_agent_is_bad_input(use, other_org, juniper):
    theirs = AgentFactory(organization=other_org, name="Their agent")
    assert bad(_record(use, juniper, ours=[str(theirs.id)]), "ours[0]")


def test_record_address_of_another_workspaces_contact_stays_an_address(use, juniper, other):
    assert _record(use, juniper, people=["eli@elsewhere.test"])["entry"]["people"] == [{"name": "eli@elsewhere.test"}]


def test_unrecord_undo_from_another_workspace_is_not_found(use, ctx, juniper, entry, other_org):
    e = entry(juniper)
    use("companies.unrecord", companyId=str(juniper.id), entryId=str(e.id))
    with pytest.raises(Exception) as raised:
        change_undo(org=other_org, change_id=change_of("companies.unrecord").id, actor=Actor.system())
    assert getattr(raised.value, "kind", None) == "not_found"


def test_recording_an_entry_again_does_not_make_it_this_works_own(use, ctx):
    """Else a thread could record an entry again and then take it off without the owner's yes."""
    from tools.pipeline import made_here

    company = use("companies.create", name="Ortiz Bakery")
    first = {"companyId": company["id"], "kind": "mail", "title": "Menu boards", "at": "2026-11-10T10:00:00Z",
             "thread": "7c41e2d0:abc"}
    ctx.work_id = "work-1"
    use("companies.record", **first)
    ctx.work_id = "work-2"
    use("companies.record", **{**first, "summary": "Rosa agreed."})
    assert made_here(ctx) == []
