"""The owner's own edit of a research table's cell on its page: the spec's `edited` state with `human: true`, the
value as the column's type, what it was kept; a value of the wrong type or a row's naming column changes nothing;
research again leaves the edit standing; another workspace's table is a 404."""

import pytest
from django.urls import reverse

from research import table_run
from research.models import Dataset, DatasetRow
from tests.research.table_fakes import PLAN

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(org):
    dataset = Dataset.objects.create(organization=org, name="Harbor bakeries", question="Every bakery in Harbor",
                                     plan=PLAN, model="gpt-6-luna")
    DatasetRow.objects.create(dataset=dataset, key="juniper-bread", position=0,
                              values={"name": "Juniper Bread", "founded": 1978, "delivers": None},
                              sources={"founded": {"status": "needs_review", "url": "https://j.example/"},
                                       "delivers": {"status": "failed"}})
    return dataset


def edit(owner, table, column, value):
    return owner.post(reverse("pages:table_edit", args=[table.id]),
                      {"key": "juniper-bread", "column": column, "value": value})


def test_the_owners_edit_is_edited_human_with_what_it_was(owner, table):
    reply = edit(owner, table, "founded", "1987")
    assert reply.status_code == 302
    row = DatasetRow.objects.get(dataset=table)
    assert row.values["founded"] == 1987
    assert row.sources["founded"] == {"status": "edited", "human": True, "was": {
        "value": 1978, "source": {"status": "needs_review", "url": "https://j.example/"}}}
    page = owner.get(reverse("pages:table", args=[table.id])).content.decode()
    assert "Added by hand" in page


def test_a_value_of_the_wrong_type_changes_nothing_and_says_why(owner, table):
    reply = edit(owner, table, "delivers", "sometimes")
    page = owner.get(reply["Location"]).content.decode()
    assert "isn&#x27;t yes or no" in page and "Nothing was changed" in page
    assert DatasetRow.objects.get(dataset=table).sources["delivers"] == {"status": "failed"}


def test_the_column_that_names_the_row_isnt_changed_by_hand(owner, table):
    edit(owner, table, "name", "Juniper Breads")
    assert DatasetRow.objects.get(dataset=table).values["name"] == "Juniper Bread"


def test_research_again_leaves_the_edit_standing(owner, table):
    edit(owner, table, "founded", "1987")
    row = DatasetRow.objects.get(dataset=table)
    answer = '{"cells": [{"column": "founded", "value": 1990, "status": "filled", "quotes": []}, ' \
             '{"column": "delivers", "value": "yes", "status": "filled", "quotes": []}]}'
    values, sources = table_run.cells_from_answer(answer, PLAN, row, [])
    assert values["founded"] == 1987 and sources["founded"]["status"] == "edited"
    assert values["delivers"] == "yes"


def test_another_workspaces_table_is_a_404(owner, other_org, table):
    theirs = Dataset.objects.create(organization=other_org, name="Theirs", question="q", plan=PLAN, model="m")
    reply = owner.post(reverse("pages:table_edit", args=[theirs.id]), {"key": "x", "column": "founded", "value": "1"})
    assert reply.status_code == 404
