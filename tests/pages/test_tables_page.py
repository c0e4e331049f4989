"""The owner's table page: the run and its money, every cell with how it was found, values waiting for review
marked with Accept, each cell's link to the words it came from; another workspace's table is a 404."""

import pytest
from django.urls import reverse

from research.models import Dataset, DatasetRow, DatasetRun, DatasetSource
from tests.research.table_fakes import PLAN

PAGE = "Juniper Bread was founded in 1987. We deliver across Harbor every morning."


@pytest.fixture
def table(org):
    dataset = Dataset.objects.create(organization=org, name="Harbor bakeries", question="Every bakery in Harbor",
                                     plan=PLAN, model="gpt-6-luna", plan_micros=1200)
    DatasetRun.objects.create(organization=org, dataset=dataset, kind="build", status="done", estimate_micros=40_000,
                              cap_micros=90_000, spent_micros=35_000, rows_total=2, rows_done=2, rows_found=True,
                              message="2 rows researched. 1 value needs your review.")
    source = DatasetSource.objects.create(dataset=dataset, url="https://juniper.example/about", title="Juniper Bread",
                                          text=PAGE)
    start = PAGE.index("founded in 1987")
    DatasetRow.objects.create(dataset=dataset, key="juniper-bread", position=0, values={
        "name": "Juniper Bread", "founded": 1987, "delivers": "yes"}, sources={
        "name": {"status": "filled", "url": "https://harbor.example/directory"},
        "founded": {"status": "filled", "url": source.url,
                    "quote": {"page": str(source.id), "start": start, "end": start + len("founded in 1987")}},
        "delivers": {"status": "needs_review", "url": source.url,
                     "quote": {"page": str(source.id), "start": PAGE.index("We deliver"), "end": len(PAGE) - 1}},
    })
    DatasetRow.objects.create(dataset=dataset, key="oat-and-ash", position=1, values={
        "name": "Oat and Ash", "founded": None, "delivers": None}, sources={
        "name": {"status": "filled"}, "founded": {"status": "not_disclosed"}, "delivers": {"status": "failed"}})
    return dataset


def test_the_table_shows_its_run_its_cells_and_what_needs_review(owner, table):
    page = owner.get(reverse("pages:table", args=[table.id])).content.decode()
    assert "<title>Harbor bakeries · Tables · Roadstar</title>" in page
    assert "2 of 2 rows researched · estimated $0.04, capped at $0.09, spent $0.04" in page
    assert "1 value needs your review" in page
    assert page.count("cell--needs_review") == 1 and "Check this" in page and "Accept</button>" in page
    assert "Not disclosed" in page and "Couldn&#x27;t fill" in page
    source = DatasetSource.objects.get(dataset=table)
    start = PAGE.index("founded in 1987")
    link = reverse("pages:table_source", args=[table.id, source.id]) + f"?start={start}&amp;end={start + 15}"
    assert f'<a href="{link}"' in page
    assert 'href="https://harbor.example/directory" rel="noopener noreferrer nofollow"' in page


def test_a_cells_source_shows_the_words_it_came_from_marked(owner, table):
    source = DatasetSource.objects.get(dataset=table)
    start = PAGE.index("founded in 1987")
    url = reverse("pages:table_source", args=[table.id, source.id])
    page = owner.get(f"{url}?start={start}&end={start + 15}").content.decode()
    assert '<mark id="quote">founded in 1987</mark>' in page and "https://juniper.example/about" in page
    # An offset past the text marks nothing, rather than failing.
    assert "<mark" not in owner.get(f"{url}?start=5&end=99999").content.decode()


def test_the_owner_accepts_a_value_waiting_for_review_and_what_was_is_kept(owner, table):
    response = owner.post(reverse("pages:table_accept", args=[table.id]), {"key": "juniper-bread",
                                                                           "column": "delivers"})
    assert response.status_code == 302
    row = DatasetRow.objects.get(dataset=table, key="juniper-bread")
    accepted = row.sources["delivers"]
    assert (accepted["status"], accepted["human"], accepted["was"]["source"]["status"]) == ("filled", True,
                                                                                           "needs_review")
    page = owner.get(reverse("pages:table", args=[table.id])).content.decode()
    assert "cell--needs_review" not in page and "accepted by you" in page
    # A value not waiting for review isn't accepted again.
    owner.post(reverse("pages:table_accept", args=[table.id]), {"key": "juniper-bread", "column": "founded"})
    assert "was" not in DatasetRow.objects.get(dataset=table, key="juniper-bread").sources["founded"]


def test_the_list_links_each_table_and_says_when_tables_are_off(owner, table):
    page = owner.get(reverse("pages:tables")).content.decode()
    assert reverse("pages:table", args=[table.id]) in page and "Done: 2 of 2 rows" in page
    assert "Research tables are off" in page


def test_another_workspaces_table_and_source_are_404_and_accepting_changes_nothing(owner, other_org):
    theirs = Dataset.objects.create(organization=other_org, name="Theirs", question="q", plan=PLAN, model="gpt-6-luna")
    source = DatasetSource.objects.create(dataset=theirs, url="https://x.example", text="secret words")
    DatasetRow.objects.create(dataset=theirs, key="x", values={"delivers": "yes"},
                              sources={"delivers": {"status": "needs_review"}})
    assert owner.get(reverse("pages:table", args=[theirs.id])).status_code == 404
    assert owner.get(reverse("pages:table_source", args=[theirs.id, source.id])).status_code == 404
    assert owner.post(reverse("pages:table_accept", args=[theirs.id]), {"key": "x", "column": "delivers"}
                      ).status_code == 404
    assert DatasetRow.objects.get(dataset=theirs).sources["delivers"] == {"status": "needs_review"}
    assert "Theirs" not in owner.get(reverse("pages:tables")).content.decode()


def test_the_newsfeed_page_turns_research_tables_on(owner, org):
    from research.selectors import group_on

    owner.post(reverse("pages:research_groups"), {"tables": "1"})
    assert group_on(org=org, group="tables")
