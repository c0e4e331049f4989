"""The contacts group through use_tool, as a thread runs it: every tool's inputs, limits, results and records."""

import datetime

import pytest
from freezegun import freeze_time

from contacts import selectors
from core.actors import Actor
from core.context import ToolContext
from core.errors import ToolError
from core.models import Change
from core.services import change_undo
from records.models import Company, CompanyPerson, Contact, ContactEmail, LogEntry, OpenItem, ProjectLink
from tests.factories import CompanyFactory, ContactFactory, ProjectFactory
from tests.spec import spec_tool_names, spec_tools
from tools import registry

UUID_ELSEWHERE = "8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22"


@pytest.fixture
def dana(org):
    return ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])


@pytest.fixture
def juniper(org):
    return CompanyFactory(organization=org, name="Juniper Dental", context="Two clinics; Dana signs off.")


@pytest.fixture
def elsewhere(other_org):
    """A contact, company and project in another workspace."""
    contact = ContactFactory(organization=other_org, name="Alex Far", emails=["alex@far.test"])
    company = CompanyFactory(organization=other_org, name="Far Away Ltd")
    project = ProjectFactory(organization=other_org, name="Far project")
    return contact, company, project


def open_item(contact, kind="you", text="Send the quote", at=None, closed=False):
    return OpenItem.objects.create(
        organization=contact.organization, contact=contact, kind=kind, text=text,
        at=at or datetime.datetime(2026, 11, 10, 9, tzinfo=datetime.UTC), by_kind="agent", by_id="a1",
        closed_at=datetime.datetime(2026, 11, 11, tzinfo=datetime.UTC) if closed else None,
    )


def at_company(contact, company, role=None, ended=None):
    return CompanyPerson.objects.create(
        organization=contact.organization, company=company, contact=contact, role=role, ended=ended
    )


def bad_input_on(out: dict, field: str) -> bool:
    return out.get("error") == "bad_input" and out["message"].startswith(f"{field}:")


# --- the declarations match the spec --------------------------------------------------------------------


def contacts_spec():
    return {n: t for n, t in spec_tools().items() if t["group"] == "contacts"}


def test_the_group_has_the_spec_tools_in_its_order():
    assert [t.name for t in registry.tools_of("contacts")] == list(contacts_spec())


@pytest.mark.parametrize("name", spec_tool_names(lambda t: t["group"] == "contacts"))
def test_declaration_matches_spec(name):
    tool, spec = registry.get_tool(name).describe(), contacts_spec()[name]
    assert (tool["description"], tool["owners_yes"], tool["your_work"]) == (
        spec["does"], spec["owners_yes"], spec["your_work"]
    )


@pytest.mark.parametrize("name", spec_tool_names(lambda t: t["group"] == "contacts"))
def test_inputs_match_spec(name):
    schema = registry.get_tool(name).input_schema()
    spec = contacts_spec()[name]
    assert (set(schema["properties"]), set(schema.get("required", []))) == (
        {i["name"] for i in spec["inputs"]}, {i["name"] for i in spec["inputs"] if i["required"]}
    )


# --- list -----------------------------------------------------------------------------------------------


def test_list_item_is_compact_with_company_and_first_open_item(use, dana, juniper):
    at_company(dana, juniper, role="Practice manager")
    open_item(dana, text="Later", at=datetime.datetime(2026, 11, 12, tzinfo=datetime.UTC))
    first = open_item(dana, kind="them", text="Sends the logo files")
    out = use("contacts.list")
    assert out["items"] == [{
        "id": str(dana.id), "name": "Dana Whitfield", "company": "Juniper Dental", "labels": [], "last": {},
        "open": {"id": str(first.id), "kind": "them", "text": "Sends the logo files", "at": "2026-11-10T09:00:00Z",
                 "by": {"kind": "agent", "id": "a1"}},
    }]


def test_list_open_is_null_without_open_items(use, dana):
    open_item(dana, closed=True)
    assert use("contacts.list")["items"][0]["open"] is None


def test_list_company_leaves_out_a_company_they_left(use, dana, juniper):
    at_company(dana, juniper, ended=datetime.date(2026, 1, 1))
    assert use("contacts.list")["items"][0]["company"] is None


def test_list_sorts_by_name(use, org):
    for name in ("Marco Ruiz", "Dana Whitfield", "Rosa Ortiz"):
        ContactFactory(organization=org, name=name)
    assert [i["name"] for i in use("contacts.list")["items"]] == ["Dana Whitfield", "Marco Ruiz", "Rosa Ortiz"]


def test_list_leaves_out_ignored_contacts(use, org, dana):
    ContactFactory(organization=org, name="Spam Sender", status=Contact.Status.IGNORED)
    assert [i["name"] for i in use("contacts.list")["items"]] == ["Dana Whitfield"]


def test_list_by_label_ignores_letter_case(use, org):
    ContactFactory(organization=org, name="Client A", labels=["Client", "VIP"])
    ContactFactory(organization=org, name="Clients B", labels=["Clients"])
    assert [i["name"] for i in use("contacts.list", label="client")["items"]] == ["Client A"]


def test_list_by_label_with_accents(use, org):
    ContactFactory(organization=org, name="Baker", labels=["Café"])
    assert [i["name"] for i in use("contacts.list", label="Café")["items"]] == ["Baker"]


@pytest.mark.parametrize("company", ["Juniper Dental", "juniper dental", "Juniper"])
def test_list_by_company_name(use, org, dana, juniper, company):
    ContactFactory(organization=org, name="Rosa Ortiz")
    at_company(dana, juniper)
    assert [i["name"] for i in use("contacts.list", company=company)["items"]] == ["Dana Whitfield"]


def test_list_by_company_id(use, org, dana, juniper):
    at_company(dana, juniper)
    other = ContactFactory(organization=org, name="Rosa Ortiz")
    at_company(other, CompanyFactory(organization=org, name="Ortiz Bakery"))
    assert [i["name"] for i in use("contacts.list", company=str(juniper.id))["items"]] == ["Dana Whitfield"]


def test_list_by_company_leaves_out_people_who_left(use, dana, juniper):
    at_company(dana, juniper, ended=datetime.date(2026, 1, 1))
    assert use("contacts.list", company="Juniper Dental")["total"] == 0


def test_list_by_unknown_company_is_not_found(use, dana):
    assert use("contacts.list", company="Nowhere Inc")["error"] == "not_found"


@pytest.mark.parametrize("query", ["whit", "JUNIPERDENTAL", "practice"])
def test_list_query_matches_name_email_or_job_title(use, org, dana, query):
    dana.job_title = "Practice manager"
    dana.save()
    ContactFactory(organization=org, name="Rosa Ortiz", emails=["rosa@ortizbakery.test"], job_title="Owner")
    assert [i["name"] for i in use("contacts.list", query=query)["items"]] == ["Dana Whitfield"]


def test_list_query_counts_a_contact_once_however_many_addresses_match(use, org):
    ContactFactory(organization=org, name="Dana", emails=["dana@a.test", "dana@b.test"])
    assert use("contacts.list", query="dana@")["total"] == 1


def test_list_by_open_kind_shows_the_open_item_of_that_kind(use, org, dana):
    open_item(dana, kind="you", text="Quote")
    follow = open_item(dana, kind="follow_up", text="Chase", at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC))
    ContactFactory(organization=org, name="Rosa Ortiz")
    out = use("contacts.list", open="follow_up")
    assert [(i["name"], i["open"]["id"]) for i in out["items"]] == [("Dana Whitfield", str(follow.id))]


def test_list_by_open_kind_leaves_out_closed_items(use, dana):
    open_item(dana, kind="them", closed=True)
    assert use("contacts.list", open="them")["total"] == 0


@freeze_time("2026-11-20T12:00:00Z")
def test_list_quiet_days_counts_from_last_at_and_includes_never_contacted(use, org):
    ContactFactory(organization=org, name="Recent", last={"at": "2026-11-18T09:00:00Z", "channel": "mail"})
    ContactFactory(organization=org, name="Quiet", last={"at": "2026-10-01T09:00:00Z", "channel": "mail"})
    ContactFactory(organization=org, name="Never")
    assert [i["name"] for i in use("contacts.list", quietDays=7)["items"]] == ["Never", "Quiet"]


def test_list_pages_by_fifty(use, org):
    for i in range(60):
        ContactFactory(organization=org, name=f"Person {i:02d}")
    first = use("contacts.list")
    assert (len(first["items"]), first["nextOffset"], first["total"]) == (50, 50, 60)


def test_list_last_page_has_no_next_offset(use, org):
    for i in range(60):
        ContactFactory(organization=org, name=f"Person {i:02d}")
    second = use("contacts.list", offset=50)
    assert ([i["name"] for i in second["items"]][0], second["nextOffset"], second["total"]) == ("Person 50", None, 60)


def test_list_leaves_out_other_workspaces(use, dana, elsewhere):
    assert [i["name"] for i in use("contacts.list")["items"]] == ["Dana Whitfield"]


def test_list_by_another_workspaces_company_id_is_not_found(use, dana, elsewhere):
    assert use("contacts.list", company=str(elsewhere[1].id))["error"] == "not_found"


@pytest.mark.parametrize("field, value", [
    ("label", ""), ("label", "x" * 41), ("company", ""), ("company", "x" * 201), ("query", "x" * 201),
    ("open", "soon"), ("quietDays", -1), ("quietDays", "7"), ("offset", -1),
])
def test_list_limits(use, field, value):
    assert bad_input_on(use("contacts.list", **{field: value}), field)


# --- find -----------------------------------------------------------------------------------------------


def test_find_by_address_ignores_letter_case(use, dana):
    assert use("contacts.find", email="  Dana@JuniperDental.test ")["id"] == str(dana.id)


def test_find_gives_each_company_with_its_context(use, dana, juniper):
    at_company(dana, juniper, role="Practice manager")
    company = use("contacts.find", email="dana@juniperdental.test")["companies"][0]
    assert (company["name"], company["context"], company["role"]) == (
        "Juniper Dental", "Two clinics; Dana signs off.", "Practice manager"
    )


def test_find_gives_context_and_open_items(use, dana):
    dana.context = "Prefers a call."
    dana.save()
    item = open_item(dana)
    found = use("contacts.find", email="dana@juniperdental.test")
    assert (found["context"], [o["id"] for o in found["open"]]) == ("Prefers a call.", [str(item.id)])


def test_find_unknown_address_is_null(use, dana):
    assert use("contacts.find", email="nobody@juniperdental.test") is None


def test_find_another_workspaces_address_is_null(use, elsewhere):
    assert use("contacts.find", email="alex@far.test") is None


def test_find_needs_an_email(use):
    assert bad_input_on(use("contacts.find"), "email")


# --- read -----------------------------------------------------------------------------------------------


def test_read_gives_the_newest_20_log_entries_newest_first(use, ctx, dana):
    for i in range(25):
        use("contacts.note", contactId=str(dana.id), text=f"Note {i}")
    log = use("contacts.read", contactId=str(dana.id))["log"]
    assert [e["text"] for e in log] == [f"Note {i}" for i in range(24, 4, -1)]


def test_read_gives_fields_companies_and_projects(use, org, dana, juniper):
    at_company(dana, juniper, role="Practice manager")
    project = ProjectFactory(organization=org, name="Rebrand")
    ProjectLink.objects.create(organization=org, project=project, contact=dana)
    out = use("contacts.read", contactId=str(dana.id))
    assert (out["emails"], [c["name"] for c in out["companies"]], out["projects"]) == (
        ["dana@juniperdental.test"], ["Juniper Dental"], [{"id": str(project.id), "name": "Rebrand"}]
    )


def test_read_another_workspaces_contact_is_not_found(use, elsewhere):
    assert use("contacts.read", contactId=str(elsewhere[0].id))["error"] == "not_found"


def test_read_limits(use):
    assert bad_input_on(use("contacts.read", contactId="dana"), "contactId")


# --- timeline -------------------------------------------------------------------------------------------


def test_timeline_without_mail_or_calendar_names_each_app_not_connected(use, dana):
    out = use("contacts.timeline", contactId=str(dana.id))
    assert (out["items"], [(f["source"], f["kind"], f["integration"], f["connection"]) for f in out["failures"]]) == (
        [], [("mail", "not_connected", "gmail", ""), ("calendar", "not_connected", "google_calendar", "")]
    )


def test_timeline_failure_message_says_what_cannot_be_read(use, dana):
    out = use("contacts.timeline", contactId=str(dana.id))
    assert out["failures"][0]["message"] == "Gmail isn't connected, so mail threads with Dana Whitfield can't be read."


class FakeProvider:
    connection = "7c41e2d0"

    def __init__(self, items=(), error=None):
        self.items, self.error, self.asked = list(items), error, []

    def contact_items(self, *, actor, addresses, limit):
        self.asked.append((actor.name, addresses, limit))
        if self.error:
            raise self.error
        return sorted(self.items, key=lambda item: item["at"], reverse=True)[:limit]


@pytest.fixture
def connect(monkeypatch):
    """`connect(mail=FakeProvider(...))`: as if the app were connected, with that provider."""

    def make(**providers):
        for source, provider in providers.items():
            entry = selectors.TIMELINE_SOURCES[source]
            monkeypatch.setattr(selectors, "TIMELINE_SOURCES", selectors.TIMELINE_SOURCES.with_entry(
                selectors.TimelineSource(
                    entry.source, entry.integration, entry.app, entry.what, lambda org, p=provider: p
                ),
            ))

    return make


def mail_item(i, day):
    return {"kind": "mail", "id": f"m{i}", "title": f"Thread {i}", "at": f"2026-11-{day:02d}T09:00:00Z"}


def test_timeline_merges_connected_sources_newest_first(use, dana, connect):
    connect(
        mail=FakeProvider([mail_item(1, 3), mail_item(2, 9)]),
        calendar=FakeProvider([{"kind": "meeting", "id": "c1", "title": "Kickoff", "at": "2026-11-05T15:00:00Z"}]),
    )
    out = use("contacts.timeline", contactId=str(dana.id))
    assert ([i["id"] for i in out["items"]], out["failures"]) == (["m2", "c1", "m1"], [])


def test_timeline_asks_providers_with_the_agent_addresses_and_default_limit(use, ctx, dana, connect):
    provider = FakeProvider()
    connect(mail=provider)
    use("contacts.timeline", contactId=str(dana.id))
    assert provider.asked == [("Client desk", ["dana@juniperdental.test"], 20)]


def test_timeline_cuts_the_merged_items_to_limit(use, dana, connect):
    meeting = {"kind": "meeting", "id": "c1", "title": "Kickoff", "at": "2026-11-04T15:00:00Z"}
    connect(mail=FakeProvider([mail_item(i, i) for i in range(1, 4)]), calendar=FakeProvider([meeting]))
    assert [i["id"] for i in use("contacts.timeline", contactId=str(dana.id), limit=2)["items"]] == ["c1", "m3"]


def test_timeline_provider_error_is_a_failure(use, dana, connect):
    connect(mail=FakeProvider(error=ToolError("reauth", "Gmail needs signing in again.")), calendar=FakeProvider())
    assert use("contacts.timeline", contactId=str(dana.id))["failures"] == [{
        "source": "mail", "kind": "reauth", "message": "Gmail needs signing in again.", "integration": "gmail",
        "connection": "7c41e2d0",
    }]


def test_timeline_another_workspaces_contact_is_not_found(use, elsewhere):
    assert use("contacts.timeline", contactId=str(elsewhere[0].id))["error"] == "not_found"


@pytest.mark.parametrize("field, value", [("limit", 0), ("limit", 101), ("limit", "5"), ("contactId", "x")])
def test_timeline_limits(use, dana, field, value):
    inp = {"contactId": str(dana.id), field: value}
    assert bad_input_on(use("contacts.timeline", **inp), field)


# --- create ---------------------------------------------------------------------------------------------


def test_create_returns_the_contact_record(use, org):
    out = use(
        "contacts.create", name="Dana Whitfield", emails=["dana@juniperdental.test"], phone="+1 555 0100",
        jobTitle="Practice manager", labels=["Lead", "Lead"], fields={"birthday": "03-14"},
    )
    assert {k: out[k] for k in ("name", "emails", "phone", "jobTitle", "labels", "fields", "status")} == {
        "name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "phone": "+1 555 0100",
        "jobTitle": "Practice manager", "labels": ["Lead"], "fields": {"birthday": "03-14"}, "status": "active",
    }


def test_create_links_company_ids(use, org, juniper):
    out = use("contacts.create", name="Dana Whitfield", companyIds=[str(juniper.id)])
    assert (
        [c["name"] for c in out["companies"]],
        CompanyPerson.objects.filter(company=juniper, contact_id=out["id"]).exists(),
    ) == (["Juniper Dental"], True)


def test_create_is_listed_on_home_in_a_sentence(use, org):
    use("contacts.create", name="Dana Whitfield")
    change = Change.objects.get(tool="contacts.create")
    assert (change.sentence, change.listing, change.kind) == ("added Dana Whitfield to Contacts", "home", "makes")


def test_create_writes_created_on_the_log(use):
    out = use("contacts.create", name="Dana Whitfield")
    assert list(LogEntry.objects.filter(contact_id=out["id"]).values_list("kind", flat=True)) == ["created"]


def test_create_with_an_address_already_on_a_contact_adds_nothing(use, dana):
    out = use("contacts.create", name="Dana W.", emails=["DANA@juniperdental.test"])
    assert (out["id"], Contact.objects.count(), Change.objects.count()) == (str(dana.id), 1, 0)


def test_create_with_another_workspaces_company_is_not_found(use, elsewhere):
    out = use("contacts.create", name="Dana", companyIds=[str(elsewhere[1].id)])
    assert (out["error"], Contact.objects.filter(name="Dana").exists()) == ("not_found", False)


def test_create_with_an_address_on_another_workspaces_contact_adds_it(use, elsewhere):
    assert use("contacts.create", name="Alex Near", emails=["alex@far.test"])["name"] == "Alex Near"


@pytest.mark.parametrize("field, value, where", [
    ("name", "", "name"), ("name", "x" * 201, "name"), ("emails", ["x" * 255], "emails[0]"),
    ("phone", "1" * 81, "phone"), ("jobTitle", "x" * 201, "jobTitle"), ("labels", [""], "labels[0]"),
    ("labels", ["x" * 41], "labels[0]"), ("companyIds", ["juniper"], "companyIds[0]"), ("fields", [], "fields"),
])
def test_create_limits(use, field, value, where):
    inp = {"name": "Dana", field: value}
    assert bad_input_on(use("contacts.create", **inp), where)


# --- add_many -------------------------------------------------------------------------------------------


PEOPLE = [
    {"name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "jobTitle": "Practice manager",
     "company": "Juniper Dental", "labels": ["Client"]},
    {"name": "Rosa Ortiz", "emails": ["rosa@ortizbakery.test"], "jobTitle": "Owner", "phone": "+1 555 0142",
     "company": "Ortiz Bakery", "labels": ["Client"], "role": "Owner"},
    {"name": "Marco Ruiz", "email": "marco@ruizprint.test", "jobTitle": "Print manager", "company": "Ruiz Print Co.",
     "labels": ["Supplier"]},
]


def test_add_many_adds_each_person(use):
    out = use("contacts.add_many", people=PEOPLE)
    assert ([a["name"] for a in out["added"]], out["existing"], out["invalid"]) == (
        ["Dana Whitfield", "Rosa Ortiz", "Marco Ruiz"], [], []
    )


def test_add_many_saves_each_persons_values(use):
    out = use("contacts.add_many", people=PEOPLE)
    rosa = use("contacts.read", contactId=out["added"][1]["id"])
    assert {k: rosa[k] for k in ("emails", "phone", "jobTitle", "labels")} == {
        "emails": ["rosa@ortizbakery.test"], "phone": "+1 555 0142", "jobTitle": "Owner", "labels": ["Client"]
    }


def test_add_many_takes_email_and_emails_together(use):
    out = use("contacts.add_many", people=[{"name": "Dana", "email": "dana@a.test", "emails": ["dana@b.test"]}])
    assert use("contacts.read", contactId=out["added"][0]["id"])["emails"] == ["dana@a.test", "dana@b.test"]


def test_add_many_makes_a_new_company_and_links_with_role(use, org):
    out = use("contacts.add_many", people=PEOPLE[1:2])
    link = CompanyPerson.objects.get(contact_id=out["added"][0]["id"])
    assert (link.company.name, link.company.organization_id, link.role) == ("Ortiz Bakery", org.id, "Owner")


def test_add_many_uses_the_workspaces_company_whatever_its_letter_case(use, juniper):
    out = use("contacts.add_many", people=[{"name": "Dana", "company": "JUNIPER dental"}])
    assert (Company.objects.count(), CompanyPerson.objects.get(contact_id=out["added"][0]["id"]).company_id) == (
        1, juniper.id
    )


def test_add_many_makes_one_company_for_rows_naming_it_alike(use):
    alike = [{"name": "A", "company": "Ortiz Bakery"}, {"name": "B", "company": "ortiz BAKERY"}]
    use("contacts.add_many", people=alike)
    assert list(Company.objects.values_list("name", flat=True)) == ["Ortiz Bakery"]


def test_add_many_does_not_use_another_workspaces_company(use, org, elsewhere):
    use("contacts.add_many", people=[{"name": "A", "company": "Far Away Ltd"}])
    assert Company.objects.filter(organization=org, name="Far Away Ltd").count() == 1


def test_add_many_logs_the_company_it_makes(use):
    use("contacts.add_many", people=PEOPLE[:1])
    assert LogEntry.objects.get(company__name="Juniper Dental").kind == "created"


def test_add_many_reports_an_address_already_on_a_contact(use, dana):
    out = use("contacts.add_many", people=[{"name": "Dana W", "emails": ["DANA@juniperdental.test"]}])
    assert (out["added"], out["existing"]) == (
        [], [{"id": str(dana.id), "name": "Dana Whitfield", "email": "DANA@juniperdental.test"}]
    )


def test_add_many_reports_an_address_repeated_in_the_batch(use):
    rows = [{"name": "Dana", "email": "dana@a.test"}, {"name": "D", "email": "Dana@a.test"}]
    out = use("contacts.add_many", people=rows)
    assert out["existing"] == [{"id": out["added"][0]["id"], "name": "Dana", "email": "Dana@a.test"}]


def test_add_many_puts_invalid_rows_aside_and_adds_the_rest(use):
    out = use("contacts.add_many", people=[{"name": "Dana", "jobTitle": "x" * 201}, {"name": "Rosa"}])
    assert ([a["name"] for a in out["added"]], out["invalid"]) == (
        ["Rosa"], [{"row": 0, "name": "Dana", "error": "jobTitle: String should have at most 200 characters"}]
    )


@pytest.mark.parametrize("row, field", [
    ({"jobTitle": "Owner"}, "name"), ({"name": ""}, "name"), ({"name": "A", "emails": ["x" * 255]}, "emails[0]"),
    ({"name": "A", "phone": "1" * 81}, "phone"), ({"name": "A", "labels": ["x" * 41]}, "labels[0]"),
    ({"name": "A", "company": "x" * 201}, "company"), ({"name": "A", "company": "B", "role": "x" * 201}, "role"),
    ({"name": "A", "role": "Owner"}, "role"), ({"name": "A", "nickname": "Al"}, "nickname"),
])
def test_add_many_invalid_row_names_the_field(use, row, field):
    out = use("contacts.add_many", people=[{"name": "Fine"}, row])
    assert (out["invalid"][0]["row"], out["invalid"][0]["error"].split(":")[0]) == (1, field)


def test_add_many_invalid_row_without_a_name_gives_null(use):
    assert use("contacts.add_many", people=[{"name": 7}])["invalid"][0]["name"] is None


def test_add_many_is_one_line_on_home(use):
    use("contacts.add_many", people=PEOPLE)
    assert list(Change.objects.values_list("sentence", "listing")) == [(
        "added 3 people to Contacts, and Juniper Dental, Ortiz Bakery and Ruiz Print Co. to Companies", "home"
    )]


def test_add_many_of_one_names_them_on_home(use):
    use("contacts.add_many", people=[{"name": "Dana Whitfield"}])
    assert Change.objects.get().sentence == "added Dana Whitfield to Contacts"


def test_add_many_that_adds_no_one_leaves_no_line_on_home(use, dana):
    use("contacts.add_many", people=[{"name": "Dana", "email": "dana@juniperdental.test"}, {"name": ""}])
    assert Change.objects.count() == 0


def test_add_many_writes_created_on_each_log(use):
    out = use("contacts.add_many", people=PEOPLE)
    ids = [a["id"] for a in out["added"]]
    assert LogEntry.objects.filter(contact_id__in=ids, kind="created").count() == 3


@pytest.mark.parametrize("people, where", [([], "people"), ([{"name": "A"}] * 201, "people"), ([1], "people[0]")])
def test_add_many_limits(use, people, where):
    assert bad_input_on(use("contacts.add_many", people=people), where)


def test_add_many_takes_200(use):
    rows = [{"name": f"P{i}", "email": f"p{i}@x.test"} for i in range(200)]
    assert len(use("contacts.add_many", people=rows)["added"]) == 200


# --- update ---------------------------------------------------------------------------------------------


def test_update_changes_the_given_fields_only(use, dana):
    dana.phone = "+1 555 0100"
    dana.save()
    out = use("contacts.update", contactId=str(dana.id), jobTitle="Practice manager", name="Dana W. Whitfield")
    assert (out["name"], out["jobTitle"], out["phone"], out["emails"]) == (
        "Dana W. Whitfield", "Practice manager", "+1 555 0100", ["dana@juniperdental.test"]
    )


def test_update_logs_each_change_with_before_and_after(use, dana):
    dana.job_title = "Manager"
    dana.save()
    use("contacts.update", contactId=str(dana.id), jobTitle="Practice manager", labels=["Client"])
    entries = LogEntry.objects.filter(contact=dana).order_by("kind")
    assert [(e.kind, e.text, e.before, e.after) for e in entries] == [
        ("labels", "Changed labels", [], ["Client"]), ("updated", "Changed job title", "Manager", "Practice manager"),
    ]


def test_update_phone_null_clears_it(use, dana):
    dana.phone = "+1 555 0100"
    dana.save()
    assert use("contacts.update", contactId=str(dana.id), phone=None)["phone"] is None


@pytest.mark.parametrize("field", ["emails", "labels", "fields"])
def test_update_refuses_null_for_a_list_or_the_fields_and_changes_nothing(use, dana, field):
    before = (dana.labels, dana.fields, list(dana.emails.values_list("email", flat=True)))
    out = use("contacts.update", contactId=str(dana.id), **{field: None})
    assert bad_input_on(out, field)
    dana.refresh_from_db()
    assert (dana.labels, dana.fields, list(dana.emails.values_list("email", flat=True))) == before


def test_update_refuses_null_for_the_name_and_keeps_it(use, dana):
    out = use("contacts.update", contactId=str(dana.id), name=None)
    assert bad_input_on(out, "name")
    dana.refresh_from_db()
    assert dana.name == "Dana Whitfield"


def test_update_fields_merge_by_name_and_null_takes_one_off(use, dana):
    dana.fields = {"birthday": "03-14", "source": "mail"}
    dana.save()
    out = use("contacts.update", contactId=str(dana.id), fields={"birthday": None, "kids": 2})
    assert out["fields"] == {"source": "mail", "kids": 2}


def test_update_logs_a_field_value_that_is_not_text_as_json(use, dana):
    use("contacts.update", contactId=str(dana.id), fields={"kids": 2})
    assert LogEntry.objects.get(contact=dana).after == "2"


def test_update_replaces_the_emails(use, dana):
    out = use("contacts.update", contactId=str(dana.id), emails=["dana@juniper.test", "dana@juniperdental.test"])
    assert out["emails"] == ["dana@juniper.test", "dana@juniperdental.test"]


def test_update_may_change_the_letter_case_of_its_own_address(use, dana):
    out = use("contacts.update", contactId=str(dana.id), emails=["Dana@JuniperDental.test"])
    assert out["emails"] == ["Dana@JuniperDental.test"]


def test_update_refuses_an_address_on_another_contact(use, org, dana):
    ContactFactory(organization=org, name="Rosa Ortiz", emails=["rosa@ortizbakery.test"])
    out = use("contacts.update", contactId=str(dana.id), emails=["ROSA@ortizbakery.test"])
    assert (bad_input_on(out, "emails"), "Rosa Ortiz" in out["message"]) == (True, True)


def test_update_refused_for_an_address_on_another_contact_changes_nothing(use, org, dana):
    ContactFactory(organization=org, name="Rosa Ortiz", emails=["rosa@ortizbakery.test"])
    use("contacts.update", contactId=str(dana.id), name="Dana W.", emails=["rosa@ortizbakery.test"])
    emails = ContactEmail.objects.filter(contact=dana).values_list("email", flat=True)
    assert (Contact.objects.get(id=dana.id).name, list(emails)) == ("Dana Whitfield", ["dana@juniperdental.test"])


def test_update_is_recorded_on_the_record_not_home(use, dana):
    use("contacts.update", contactId=str(dana.id), jobTitle="Practice manager", phone="+1 555 0100")
    change = Change.objects.get(tool="contacts.update")
    assert (change.sentence, change.listing, change.kind, change.undo) == (
        "changed Dana Whitfield's phone to +1 555 0100 and job title to Practice manager", "record", "changes", None
    )


def test_update_that_changes_nothing_records_nothing(use, dana):
    out = use("contacts.update", contactId=str(dana.id), name="Dana Whitfield", emails=["dana@juniperdental.test"])
    assert (out["name"], Change.objects.count(), LogEntry.objects.filter(contact=dana).count()) == (
        "Dana Whitfield", 0, 0
    )


def test_update_is_checked(ctx):
    tool = registry.get_tool("contacts.update")
    assert tool.is_checked(ctx, tool.input.model_validate({"contactId": UUID_ELSEWHERE, "phone": "1"})) is True


def replaces(ctx, contact, **inp):
    tool = registry.get_tool("contacts.update")
    return tool.replaces(ctx, tool.input.model_validate({"contactId": str(contact.id), **inp}))


def test_update_replaces_nothing_when_it_fills_an_empty_field(ctx, dana):
    assert replaces(ctx, dana, jobTitle="Practice manager", emails=["dana@juniperdental.test", "d@x.test"]) is None


def test_update_replaces_the_value_it_overwrites(ctx, dana):
    dana.job_title = "Manager"
    dana.phone = "+1 555 0100"
    dana.save()
    assert replaces(ctx, dana, jobTitle="Practice manager", phone="+1 555 0100") == {
        "name": "Dana Whitfield", "jobTitle": "Manager"
    }


def test_update_replaces_the_emails_and_labels_it_takes_off(ctx, dana):
    dana.labels = ["Lead", "VIP"]
    dana.save()
    assert replaces(ctx, dana, emails=["dana@juniper.test"], labels=["VIP", "Client"]) == {
        "name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "labels": ["Lead"]
    }


def test_update_replaces_the_named_fields_it_overwrites(ctx, dana):
    dana.fields = {"ask": True, "birthday": "03-14"}
    dana.save()
    assert replaces(ctx, dana, fields={"ask": None, "birthday": "03-14", "kids": 2}) == {
        "name": "Dana Whitfield", "fields": {"ask": True}
    }


def test_update_replaces_nothing_for_another_workspaces_contact(ctx, elsewhere):
    assert replaces(ctx, elsewhere[0], phone="1") is None


def test_update_another_workspaces_contact_is_not_found(use, elsewhere):
    out = use("contacts.update", contactId=str(elsewhere[0].id), phone="1")
    assert (out["error"], Contact.objects.get(id=elsewhere[0].id).phone) == ("not_found", None)


@pytest.mark.parametrize("field, value, where", [
    ("name", "", "name"), ("name", None, "name"), ("emails", ["x" * 255], "emails[0]"), ("phone", "1" * 81, "phone"),
    ("jobTitle", "x" * 201, "jobTitle"), ("labels", ["x" * 41], "labels[0]"), ("labels", [""], "labels[0]"),
    ("fields", "birthday", "fields"), ("contactId", "dana", "contactId"),
])
def test_update_limits(use, dana, field, value, where):
    inp = {"contactId": str(dana.id), field: value}
    assert bad_input_on(use("contacts.update", **inp), where)


# --- context --------------------------------------------------------------------------------------------


def test_context_sets_it_and_logs_why(use, dana):
    out = use("contacts.context", contactId=str(dana.id), text="Prefers a call.", why="She said so on the phone")
    entry = LogEntry.objects.get(id=out["entryId"])
    assert (out["contact"]["context"], entry.kind, entry.before, entry.after, entry.why) == (
        "Prefers a call.", "context", None, "Prefers a call.", "She said so on the phone"
    )


def test_context_is_listed_on_home_with_undo(use, dana):
    use("contacts.context", contactId=str(dana.id), text="Prefers a call.", why="She said so")
    change = Change.objects.get()
    assert (change.sentence, change.listing, change.can_undo) == (
        "set Dana Whitfield's Context: She said so", "home_undo", True
    )


def test_context_undo_restores_exactly(use, ctx, dana):
    dana.context = "Pays late."
    dana.save()
    use("contacts.context", contactId=str(dana.id), text="Pays on time now.", why="Paid early twice")
    change_undo(org=ctx.org, change_id=Change.objects.get().id, actor=ctx.actor)
    assert Contact.objects.get(id=dana.id).context == "Pays late."


def test_context_undo_is_recorded(use, ctx, dana):
    use("contacts.context", contactId=str(dana.id), text="Prefers a call.", why="She said so")
    change = Change.objects.get()
    undo = change_undo(org=ctx.org, change_id=change.id, actor=ctx.actor)
    change.refresh_from_db()
    assert (undo.undoes_id, change.undone_by_id, LogEntry.objects.filter(contact=dana).first().kind) == (
        change.id, undo.id, "restored"
    )


def test_context_undo_after_a_later_change_is_changed(use, ctx, dana):
    use("contacts.context", contactId=str(dana.id), text="Prefers a call.", why="She said so")
    first = Change.objects.get()
    use("contacts.context", contactId=str(dana.id), text="Prefers mail.", why="Changed her mind")
    with pytest.raises(ToolError) as raised:
        change_undo(org=ctx.org, change_id=first.id, actor=ctx.actor)
    assert (raised.value.kind, Contact.objects.get(id=dana.id).context) == ("changed", "Prefers mail.")


def test_context_replaces_the_context_there(ctx, dana):
    dana.context = "Pays late."
    dana.save()
    tool = registry.get_tool("contacts.context")
    inp = tool.input.model_validate({"contactId": str(dana.id), "text": "x", "why": "y"})
    assert tool.replaces(ctx, inp) == {"name": "Dana Whitfield", "context": "Pays late."}


def test_context_another_workspaces_contact_is_not_found(use, elsewhere):
    assert use("contacts.context", contactId=str(elsewhere[0].id), text="x", why="y")["error"] == "not_found"


@pytest.mark.parametrize("field, value", [("text", "x" * 1501), ("why", ""), ("why", "x" * 2001)])
def test_context_limits(use, dana, field, value):
    inp = {"contactId": str(dana.id), "text": "Prefers a call.", "why": "She said so", field: value}
    assert bad_input_on(use("contacts.context", **inp), field)


# --- note -----------------------------------------------------------------------------------------------


@freeze_time("2026-11-10T14:30:00Z")
def test_note_returns_the_dated_log_entry(use, ctx, dana):
    out = use("contacts.note", contactId=str(dana.id), text="Asked about signage prices.")
    assert {k: out[k] for k in ("at", "by", "kind", "text")} == {
        "at": "2026-11-10T14:30:00Z", "by": ctx.actor.by(), "kind": "note", "text": "Asked about signage prices."
    }


def test_note_shows_on_the_record_not_home(use, dana):
    out = use("contacts.note", contactId=str(dana.id), text="Asked about signage.")
    change = Change.objects.get()
    assert (change.listing, change.sentence, str(LogEntry.objects.get(id=out["id"]).change_id)) == (
        "record", "added a note to Dana Whitfield", str(change.id)
    )


def test_note_another_workspaces_contact_is_not_found(use, elsewhere):
    assert use("contacts.note", contactId=str(elsewhere[0].id), text="x")["error"] == "not_found"


@pytest.mark.parametrize("value", ["", "x" * 2001])
def test_note_limits(use, dana, value):
    assert bad_input_on(use("contacts.note", contactId=str(dana.id), text=value), "text")


# --- follow_up ------------------------------------------------------------------------------------------


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_opens_an_item_for_this_agent_in_this_thread(use, ctx, dana):
    use("contacts.follow_up", contactId=str(dana.id), text="Did Dana pick a day?", at="2026-11-13T09:00:00-05:00")
    item = OpenItem.objects.get(contact=dana)
    assert (item.kind, item.text, item.at, item.thread, item.by_kind, item.by_id) == (
        "follow_up", "Did Dana pick a day?", datetime.datetime(2026, 11, 13, 14, tzinfo=datetime.UTC), "thread-1",
        "agent", ctx.actor.id,
    )


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_returns_the_record_with_it_open(use, dana):
    out = use("contacts.follow_up", contactId=str(dana.id), text="Chase", at="2026-11-13T14:00:00Z")
    assert [(o["kind"], o["at"], o["thread"]) for o in out["open"]] == [
        ("follow_up", "2026-11-13T14:00:00Z", "thread-1")
    ]


@freeze_time("2026-07-10T12:00:00Z")
def test_follow_up_without_an_offset_is_the_owners_time(use, org, dana):
    org.time_zone = "America/Los_Angeles"
    org.save()
    use("contacts.follow_up", contactId=str(dana.id), text="Chase", at="2026-07-13T09:00:00")
    assert OpenItem.objects.get().at == datetime.datetime(2026, 7, 13, 16, tzinfo=datetime.UTC)


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_shows_on_the_log_in_the_owners_time(use, dana):
    use("contacts.follow_up", contactId=str(dana.id), text="Chase", at="2026-11-13T14:00:00Z")
    entry = LogEntry.objects.get(contact=dana)
    assert (entry.kind, entry.text, entry.extra) == (
        "follow_up", "Follow-up for Fri Nov 13, 2026, 9:00 AM EST: Chase", {"thread": "thread-1"}
    )


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_shows_on_the_record_not_home(use, dana):
    use("contacts.follow_up", contactId=str(dana.id), text="Chase", at="2026-11-13T14:00:00Z")
    assert list(Change.objects.values_list("listing", "sentence")) == [
        ("record", "set a follow-up on Dana Whitfield for Fri Nov 13, 2026, 9:00 AM EST")
    ]


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_in_the_past_is_bad_input(use, dana):
    out = use("contacts.follow_up", contactId=str(dana.id), text="Chase", at="2026-11-09T09:00:00Z")
    assert (bad_input_on(out, "at"), OpenItem.objects.count()) == (True, 0)


@freeze_time("2026-11-10T12:00:00Z")
def test_follow_up_another_workspaces_contact_is_not_found(use, elsewhere):
    out = use("contacts.follow_up", contactId=str(elsewhere[0].id), text="Chase", at="2026-11-13T14:00:00Z")
    assert out["error"] == "not_found"


@pytest.mark.parametrize("field, value", [
    ("text", ""), ("text", "x" * 2001), ("at", "2026-11-13"), ("at", "next Friday"), ("at", 1794560400),
])
def test_follow_up_limits(use, dana, field, value):
    inp = {"contactId": str(dana.id), "text": "Chase", "at": "2026-11-13T09:00:00Z", field: value}
    assert bad_input_on(use("contacts.follow_up", **inp), field)


# --- link_project ---------------------------------------------------------------------------------------


def test_link_project_links_them(use, org, dana):
    project = ProjectFactory(organization=org, name="Rebrand")
    out = use("contacts.link_project", contactId=str(dana.id), projectId=str(project.id))
    assert (out, ProjectLink.objects.filter(project=project, contact=dana).count()) == (
        {"projectId": str(project.id), "contactId": str(dana.id)}, 1
    )


def test_link_project_shows_on_the_log_not_home(use, org, dana):
    project = ProjectFactory(organization=org, name="Rebrand")
    use("contacts.link_project", contactId=str(dana.id), projectId=str(project.id))
    entry = LogEntry.objects.get(contact=dana)
    assert (entry.kind, entry.text, Change.objects.get().listing) == (
        "linked", "Linked to the project Rebrand", "record"
    )


def test_link_project_twice_links_once_and_records_once(use, org, dana):
    project = ProjectFactory(organization=org, name="Rebrand")
    for _ in range(2):
        out = use("contacts.link_project", contactId=str(dana.id), projectId=str(project.id))
    assert (out["projectId"], ProjectLink.objects.count(), Change.objects.count(), LogEntry.objects.count()) == (
        str(project.id), 1, 1, 1
    )


def test_link_project_to_another_workspaces_project_is_not_found(use, dana, elsewhere):
    out = use("contacts.link_project", contactId=str(dana.id), projectId=str(elsewhere[2].id))
    assert (out["error"], ProjectLink.objects.count()) == ("not_found", 0)


def test_link_project_of_another_workspaces_contact_is_not_found(use, org, elsewhere):
    project = ProjectFactory(organization=org)
    out = use("contacts.link_project", contactId=str(elsewhere[0].id), projectId=str(project.id))
    assert out["error"] == "not_found"


@pytest.mark.parametrize("field", ["contactId", "projectId"])
def test_link_project_limits(use, field):
    inp = {"contactId": UUID_ELSEWHERE, "projectId": UUID_ELSEWHERE, field: "rebrand"}
    assert bad_input_on(use("contacts.link_project", **inp), field)


# --- who acts -------------------------------------------------------------------------------------------


def test_a_change_the_owner_makes_is_theirs_on_the_log(org, dana, use):
    owner = ToolContext(org=org, actor=Actor.for_user(org.owner))
    use("contacts.note", _ctx=owner, contactId=str(dana.id), text="Met at the fair.")
    assert LogEntry.objects.get(contact=dana).by_kind == "user"
