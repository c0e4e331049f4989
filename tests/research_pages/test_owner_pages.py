"""The owner's research pages: the list, a page drawn like a doc with its sources, the comment form's limits, the
research tools setting, another workspace's page a 404, and what an agent or a web page wrote kept as text."""

import pytest
from django.urls import reverse

from pages.research import render_document
from research import page_services
from research.models import PageComment, ResearchSettings
from tests.factories import ProjectFactory


@pytest.fixture
def signed_in(client, org):
    client.force_login(org.owner)
    return client


def test_the_list_and_a_page(signed_in, ready_page):
    page = ready_page()
    listed = signed_in.get(reverse("pages:research_pages")).content.decode()
    assert "How many coffee shops does the UK have?" in listed and "Research · Roadstar" in listed
    shown = signed_in.get(reverse("pages:research_page", args=[page.id])).content.decode()
    assert "<title>How many coffee shops does the UK have? · Research · Roadstar</title>" in shown
    assert '<a href="#source-1" aria-label="Source 1">[1]</a>' in shown and 'id="source-2"' in shown
    assert "Outlets" in shown and "The other view" in shown
    live = signed_in.get(reverse("pages:research_page_live", args=[page.id])).content.decode()
    assert 'data-live-part="document"' in live and 'data-live-part="comments"' in live


def test_another_workspaces_page_is_a_404_and_takes_no_comment(signed_in, other_org):
    theirs = page_services.page_request(org=other_org, project=ProjectFactory(organization=other_org),
                                        question="Theirs")
    assert signed_in.get(reverse("pages:research_page", args=[theirs.id])).status_code == 404
    assert signed_in.post(reverse("pages:research_page_comment", args=[theirs.id]),
                          {"text": "hello"}).status_code == 404
    assert not PageComment.objects.exists()


def test_a_comment_too_long_is_refused_and_kept_in_its_box(signed_in, ready_page):
    page = ready_page()
    response = signed_in.post(reverse("pages:research_page_comment", args=[page.id]), {"text": "x" * 10_001})
    assert response.status_code == 400 and "holds up to 10,000" in response.content.decode()
    assert "x" * 10_001 in response.content.decode() and not PageComment.objects.exists()
    ok = signed_in.post(reverse("pages:research_page_comment", args=[page.id]), {"text": "x" * 10_000})
    assert ok.status_code == 302 and PageComment.objects.get().agent_id is None


def test_the_owner_turns_research_pages_on(signed_in, org):
    signed_in.post(reverse("pages:research_groups"), {"pages": "1"})
    settings = ResearchSettings.objects.get(organization=org)
    assert (settings.pages_on, settings.filings_on, settings.newsfeed_on) == (True, False, False)
    assert 'name="pages" value="1" checked' in signed_in.get(reverse("pages:newsfeed")).content.decode()


def test_what_an_agent_or_a_web_page_wrote_stays_text():
    artifact = {
        "synopsisMarkdown": "<script>alert(1)</script> [1]",
        "bodyMdx": "<img src=x onerror=alert(1)> [1] [9] `[1]`",
        "charts": [{"id": "c", "title": "</script><script>alert(2)</script>", "type": "bar", "description": None,
                    "noteMarkdown": None, "xLabel": None, "yLabel": None,
                    "series": [{"key": "k", "label": "<b>", "unit": None}],
                    "rows": [{"x": "<i>", "values": [1], "sourceDocumentIds": ["s"]}]}],
        "dataTables": [{"id": "t", "title": "| pipes |", "columns": ["<a>"],
                        "rows": [{"cells": ["x | y"], "sourceDocumentIds": ["s"]}]}],
        "timelines": [],
    }

    class Source:
        id, citation_number = "s", 1

    html = str(render_document(artifact, sources=[Source()]).html)
    assert "<script>alert" not in html and "<img" not in html and "<b>" not in html
    assert html.count('href="#source-1"') >= 3 and "[9]" in html  # a number with no source stays as written
