"""Research pages and tables in search (spec tools/search.md: one search over the copy "and the workspace's own docs,
tables and contacts"): a written page and a table's rows are found by their words, the type filter and counts cover
them, a page the writer hasn't written yet isn't there, a table's newly researched row is caught, a deleted one
leaves, and another workspace's research is never found."""

import pytest
from django.utils import timezone

from records.models import Project
from research.models import Dataset, DatasetRow, PageRevision, ResearchPage
from tests.research.table_fakes import PLAN
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db

ARTIFACT = {"synopsisMarkdown": "Harbor's bakeries deliver before 7am.",
            "bodyMdx": "Juniper Bread and Oat and Ash bake sourdough.",
            "dataTables": [{"rows": [{"cells": ["Juniper Bread", "1987"]}]}]}


def research_page(org, *, title="Who delivers in Harbor?", written=True):
    project = Project.objects.create(organization=org, name="Harbor market")
    page = ResearchPage.objects.create(organization=org, project=project, title=title, slug="harbor",
                                       question="Which Harbor bakeries deliver wholesale?")
    if written:
        revision = PageRevision.objects.create(page=page, number=1, title=title, artifact=ARTIFACT)
        ResearchPage.objects.filter(pk=page.pk).update(current_revision=revision, generation="completed",
                                                       updated_at=timezone.now())
    return page


def table(org):
    dataset = Dataset.objects.create(organization=org, name="Harbor bakeries", question="Every bakery in Harbor",
                                     plan=PLAN, model="gpt-6-luna")
    DatasetRow.objects.create(dataset=dataset, key="juniper-bread", position=0,
                              values={"name": "Juniper Bread", "founded": 1987, "delivers": "yes"})
    return dataset


def search(ctx, **inp):
    out = use_tool(ctx, "search.search", inp)
    assert "error" not in out, out
    return out


def test_a_written_page_is_found_by_its_words_and_typed_page(ctx, org):
    page = research_page(org)
    out = search(ctx, query="sourdough")
    assert [(r["title"], r["type"]) for r in out["results"]] == [("Who delivers in Harbor?", "page")]
    assert out["counts"]["type"] == {"page": 1}
    read = use_tool(ctx, "search.read", {"id": out["results"][0]["id"]})
    assert "deliver before 7am" in read["text"] and read["url"] == f"/research/{page.id}/"


def test_a_tables_rows_are_found_and_the_type_filter_takes_table(ctx, org):
    table(org)
    research_page(org)
    out = search(ctx, query="Juniper", type=["table"])
    assert [(r["title"], r["type"]) for r in out["results"]] == [("Harbor bakeries", "table")]
    both = search(ctx, query="Juniper")
    assert both["counts"]["type"] == {"page": 1, "table": 1}


def test_a_page_not_written_yet_is_not_in_search(ctx, org):
    research_page(org, written=False)
    assert search(ctx, query="wholesale")["results"] == []


def test_a_row_researched_after_the_last_search_is_caught(ctx, org):
    dataset = table(org)
    assert search(ctx, query="Juniper")["total"] == 1
    DatasetRow.objects.create(dataset=dataset, key="oat-and-ash", position=1, researched_at=timezone.now(),
                              values={"name": "Oat and Ash", "founded": 2011, "delivers": "no"})
    assert [r["title"] for r in search(ctx, query="Oat")["results"]] == ["Harbor bakeries"]


def test_a_deleted_table_leaves_search(ctx, org):
    dataset = table(org)
    assert search(ctx, query="Juniper")["total"] == 1
    dataset.delete()
    assert search(ctx, query="Juniper")["total"] == 0


def test_another_workspaces_research_is_never_found(ctx, org, other_org):
    research_page(other_org)
    table(other_org)
    assert search(ctx, query="Juniper")["results"] == []
