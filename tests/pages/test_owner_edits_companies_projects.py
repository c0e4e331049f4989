"""The owner adds and changes companies (Companies, a company's page) and projects (Docs): through the same
services agents' changes go through, each on Home's Your work linking to the record, an edit with Undo."""

import html

import pytest

from core.models import Change
from records.models import Company, Project
from tests.factories import CompanyFactory


def text_of(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def juniper(org):
    return CompanyFactory(organization=org, name="Juniper Dental", website="juniper.test", domains=["juniper.test"])


def test_add_a_company_and_it_is_on_home_linking_to_it(owner, org):
    response = owner.post("/companies/add", {"name": "Park Bakery", "website": "parkbakery.test",
                                             "domains": "parkbakery.test, @PB.test"})
    park = Company.objects.get(organization=org, name="Park Bakery")
    assert response["Location"] == f"/companies/{park.id}/"
    assert park.domains == ["parkbakery.test", "pb.test"] and park.website == "parkbakery.test"
    change = Change.objects.get(organization=org, tool="companies.create", target_id=str(park.id))
    assert change.actor_kind == "user"
    home = text_of(owner.get("/"))
    assert "added Park Bakery to Companies" in home and f"/companies/{park.id}/" in home


def test_a_company_already_there_adds_nothing_and_says_which(owner, org, juniper):
    response = owner.post("/companies/add", {"name": "juniper dental"}, follow=True)
    assert "Not added: Juniper Dental has" in text_of(response)
    assert Company.objects.filter(organization=org).count() == 1


@pytest.mark.parametrize("data, says", [
    ({"name": " "}, "Name: give at least 1 character."),
    ({"name": "x" * 201}, "Name: at most 200 characters (it has 201)."),
    ({"name": "Ok", "website": "w" * 301}, "Website: at most 300 characters (it has 301)."),
])
def test_bad_company_input_adds_nothing_and_names_the_field(owner, org, data, says):
    response = owner.post("/companies/add", data, follow=True)
    assert says in text_of(response)
    assert not Company.objects.filter(organization=org).exists()


def test_edit_a_company_is_on_home_with_the_new_values_and_undo_restores(owner, org, juniper):
    page = text_of(owner.get(f"/companies/{juniper.id}/"))
    assert f'action="/companies/{juniper.id}/edit"' in page
    owner.post(f"/companies/{juniper.id}/edit", {"name": "Juniper Dental", "website": "juniperdental.test",
                                                 "domains": "juniper.test", "context": "Pays on the 1st."})
    juniper.refresh_from_db()
    assert juniper.website == "juniperdental.test" and juniper.context == "Pays on the 1st."
    assert juniper.context_by == {"kind": "user", "id": str(org.owner_id)}
    change = Change.objects.get(organization=org, tool="companies.owner_edit")
    assert change.sentence == "changed Juniper Dental's website to juniperdental.test and Context to “Pays on the 1st.”"
    assert change.sentence in text_of(owner.get("/"))
    owner.post(f"/changes/{change.id}/undo")
    juniper.refresh_from_db()
    assert (juniper.website, juniper.context, juniper.context_by) == ("juniper.test", None, None)


def test_a_company_given_anothers_name_or_domain_is_refused(owner, org, juniper):
    CompanyFactory(organization=org, name="Park Bakery")
    CompanyFactory(organization=org, name="Ruiz Print Co.", domains=["ruizprint.test"])
    response = owner.post(f"/companies/{juniper.id}/edit", {"name": "park bakery"}, follow=True)
    assert "Name: Park Bakery is already in Companies." in text_of(response)
    response = owner.post(f"/companies/{juniper.id}/edit", {"domains": "juniper.test, RuizPrint.test"}, follow=True)
    assert "Email domains: ruizprint.test is Ruiz Print Co.'s already." in text_of(response)
    juniper.refresh_from_db()
    assert (juniper.name, juniper.domains) == ("Juniper Dental", ["juniper.test"])


def test_another_workspaces_company_is_not_found(owner, other_org):
    theirs = CompanyFactory(organization=other_org, name="Theirs")
    assert owner.post(f"/companies/{theirs.id}/edit", {"name": "Mine now"}).status_code == 404
    assert owner.get(f"/companies/{theirs.id}/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.name == "Theirs"


def test_start_a_project_and_rename_it_with_undo(owner, org):
    response = owner.post("/projects/add", {"name": "Spring menu", "description": "New boards"})
    spring = Project.objects.get(organization=org, name="Spring menu")
    assert response["Location"] == f"/docs/?project={spring.id}"
    assert "Edit the project" in text_of(owner.get(response["Location"]))
    assert f'href="/docs/?project={spring.id}"' in text_of(owner.get("/docs/"))  # found with no docs yet
    home = text_of(owner.get("/"))
    assert "started the project Spring menu" in home and f"/docs/?project={spring.id}" in home
    owner.post(f"/projects/{spring.id}/edit", {"name": "Summer menu", "description": "New boards"})
    change = Change.objects.get(organization=org, tool="docs.project_owner_edit")
    assert change.sentence == "renamed the project Spring menu to Summer menu"
    owner.post(f"/changes/{change.id}/undo")
    spring.refresh_from_db()
    assert spring.name == "Spring menu"


@pytest.mark.parametrize("data, says", [
    ({"name": ""}, "Name: give the project a name."),
    ({"name": "p" * 121}, "Name: at most 120 characters (it has 121)."),
    ({"name": "Ok", "description": "d" * 2001}, "Description: at most 2,000 characters (it has 2,001)."),
])
def test_bad_project_input_adds_nothing_and_names_the_field(owner, org, data, says):
    response = owner.post("/projects/add", data, follow=True)
    assert says in text_of(response)
    assert not Project.objects.filter(organization=org).exists()


def test_another_workspaces_project_is_not_found(owner, other_org):
    theirs = Project.objects.create(organization=other_org, name="Theirs")
    assert owner.post(f"/projects/{theirs.id}/edit", {"name": "Mine"}).status_code == 404
    assert owner.get(f"/docs/?project={theirs.id}").status_code == 404
