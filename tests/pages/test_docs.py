"""Docs: the list by project, a doc's page (its MDX rendered, charts drawn from the vendored vega-embed, its
versions), and the owner's notes with the agents' answers under each."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from core.actors import Actor
from docs import services as doc_services
from records.models import DocNote, Project
from tests.factories import DocFactory, ProjectFactory
from tests.pages.test_contacts import text_of
from tests.pages.test_mdx import SPEC, chart_specs

pytestmark = pytest.mark.django_db


def write(ws, text: str, *, lines=("Rewrote it.",)):
    return doc_services.doc_write(
        org=ws.org, actor=Actor.for_agent(ws.agent), title=ws.doc.title, text=text, lines=list(lines), doc=ws.doc
    )


def doc_page(owner, ws) -> str:
    response = owner.get(reverse("pages:doc", args=[ws.doc.id]))
    assert response.status_code == 200
    return response.content.decode()


# --- the list ---------------------------------------------------------------------------------------------


def test_list_groups_docs_under_their_project(owner, ws, org):
    other = Project.objects.create(organization=org, name="Bookkeeping")
    DocFactory(organization=org, project=other, title="October close")
    page = text_of(owner.get(reverse("pages:docs")))
    assert re.search(r"Bookkeeping October close .*Dana rebrand Dana rebrand quote", page)


def test_list_links_each_doc(owner, ws):
    assert reverse("pages:doc", args=[ws.doc.id]) in owner.get(reverse("pages:docs")).content.decode()


def test_project_filter_shows_that_projects_docs(owner, ws, org):
    other = ProjectFactory(organization=org, name="Bookkeeping", description="The monthly books")
    DocFactory(organization=org, project=other, title="October close")
    page = text_of(owner.get(reverse("pages:docs"), {"project": other.id}))
    assert "Bookkeeping" in page and "The monthly books" in page and "October close" in page and (
        "Dana rebrand quote" not in page
    )


def test_a_project_id_that_is_not_one_is_404(owner, ws):
    assert owner.get(reverse("pages:docs"), {"project": "nope"}).status_code == 404


def test_search_by_title(owner, ws, org):
    DocFactory(organization=org, project=ws.project, title="Kickoff agenda")
    page = text_of(owner.get(reverse("pages:docs"), {"q": "kickoff"}))
    assert "Kickoff agenda" in page and "Dana rebrand quote" not in page


def test_empty_list_says_how_docs_arrive(owner, org):
    assert "No docs yet" in text_of(owner.get(reverse("pages:docs")))


# --- a doc's page -----------------------------------------------------------------------------------------


def test_doc_page_renders_its_markdown(owner, ws):
    body = doc_page(owner, ws)
    assert "<h2>Scope</h2>" in body and '<td style="text-align:right">$4,800</td>' in body


def test_doc_page_renders_components_and_escapes_raw_html(owner, ws):
    write(ws, '<Callout tone="warning">Prices hold to **Dec 1**.</Callout>\n\n<script>alert(1)</script>\n')
    body = doc_page(owner, ws)
    assert (
        '<aside class="callout callout--warning" role="note">' in body
        and "<strong>Dec 1</strong>" in body
        and "<script>alert(1)</script>" not in body
        and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    )


def test_doc_page_draws_a_chart_with_the_vendored_vega_embed(owner, ws):
    write(ws, "## Hours\n\n<Chart title=\"Hours\">\n```vega-lite\n" + json.dumps(SPEC) + "\n```\n</Chart>\n")
    body = doc_page(owner, ws)
    # In order, after the one every page has (the limit counters).
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', body)
    scripts = [s for s in scripts if s != "/static/roadstar/limits.js"]
    assert scripts == [
        "/static/vendor/vega/vega.min.js", "/static/vendor/vega/vega-lite.min.js",
        "/static/vendor/vega/vega-embed.min.js", "/static/pages/charts.js",
    ] and chart_specs(body) == {"doc-chart-1-spec": SPEC} and 'data-chart="doc-chart-1-spec"' in body


def test_the_chart_scripts_are_served_from_static(settings):
    found = [finders.find(p) for p in (
        "vendor/vega/vega.min.js", "vendor/vega/vega-lite.min.js", "vendor/vega/vega-embed.min.js", "pages/charts.js",
        "vendor/vega/LICENSE-vega", "vendor/vega/LICENSE-vega-lite", "vendor/vega/LICENSE-vega-embed",
    )]
    assert all(found)


def test_a_doc_without_charts_loads_no_chart_scripts(owner, ws):
    assert "vega" not in doc_page(owner, ws)


def test_doc_page_links_roadstar_links_to_the_records(owner, ws):
    write(ws, f"For [Dana](roadstar:contact/{ws.contact.id}) at [the clinic](roadstar:company/{ws.company.id}); "
              f"see [mail](roadstar:email/7c41e2d0:19a2).")
    body = doc_page(owner, ws)
    assert (
        f'<a href="/contacts/{ws.contact.id}/" class="ref ref--contact">Dana</a>' in body
        and f'<a href="/companies/{ws.company.id}/" class="ref ref--company">the clinic</a>' in body
        and "see mail." in body
    )


def test_doc_page_shows_the_brief(owner, ws):
    ws.doc.brief = "A quote for the rebrand, two clinics."
    ws.doc.save()
    assert "A quote for the rebrand, two clinics." in text_of(owner.get(reverse("pages:doc", args=[ws.doc.id])))


def test_a_doc_with_no_text_yet_says_so(owner, ws, org):
    empty = DocFactory(organization=org, project=ws.project, text=None)
    assert "Nothing written yet." in text_of(owner.get(reverse("pages:doc", args=[empty.id])))


# --- versions ---------------------------------------------------------------------------------------------


def test_versions_are_listed_newest_first_with_what_changed(owner, ws):
    write(ws, "## Scope\n\nLogo only.", lines=["Took signage out, as Dana asked."])
    page = text_of(owner.get(reverse("pages:doc", args=[ws.doc.id])))
    versions = page.split(" Versions ", 1)[1]
    assert re.search(
        r"Version 2 current · Client desk Took signage out, as Dana asked\. .* Version 1 · Client desk "
        r"Priced from the rate card\.", versions,
    )


def test_an_old_version_renders_its_own_text(owner, ws):
    write(ws, "## Scope\n\nLogo only.")
    response = owner.get(reverse("pages:doc_version", args=[ws.doc.id, 1]))
    page = text_of(response)
    assert "Version 1 of 2" in page and "$4,800" in page and "Logo only." not in page and (
        "Read the current version" in page
    )


def test_a_version_the_doc_does_not_have_is_404(owner, ws):
    assert owner.get(reverse("pages:doc_version", args=[ws.doc.id, 9])).status_code == 404


# --- notes --------------------------------------------------------------------------------------------------


def test_leaving_a_note_adds_it_to_the_doc(owner, ws, org):
    response = owner.post(reverse("pages:doc_note", args=[ws.doc.id]), {"note": "Shorter, please.", "on": "Scope"})
    note = DocNote.objects.get(doc=ws.doc)
    assert (
        response.status_code == 302
        and response.url == reverse("pages:doc", args=[ws.doc.id]) + "#notes"
        and (note.note, note.on, note.by, note.state)
        == ("Shorter, please.", "Scope", {"kind": "user", "id": str(org.owner_id)}, "open")
    )


def test_the_note_shows_under_your_notes_waiting_for_an_answer(owner, ws):
    owner.post(reverse("pages:doc_note", args=[ws.doc.id]), {"note": "Shorter, please.", "on": "Scope"})
    page = text_of(owner.get(reverse("pages:doc", args=[ws.doc.id])))
    assert re.search(r"Your notes Scope Shorter, please\. You, .* waiting for an answer", page)


def test_the_agents_answer_shows_under_the_note(owner, ws, org):
    note = doc_services.doc_note_add(org=org, actor=Actor.for_user(org.owner), doc=ws.doc, on="", note="Why $4,800?")
    doc_services.doc_note_answer(org=org, actor=Actor.for_agent(ws.agent), doc=ws.doc, note_id=note.id,
                                 outcome="kept", text="It's the rate card's price for a logo.")
    page = text_of(owner.get(reverse("pages:doc", args=[ws.doc.id])))
    assert re.search(r"Why \$4,800\? You, .* kept Client desk kept It's the rate card's price for a logo\.", page)


def test_an_empty_note_is_refused(owner, ws):
    response = owner.post(reverse("pages:doc_note", args=[ws.doc.id]), {"note": "   "}, follow=True)
    assert "Write the note first" in text_of(response) and not DocNote.objects.exists()


def test_a_note_too_long_is_refused(owner, ws):
    response = owner.post(reverse("pages:doc_note", args=[ws.doc.id]), {"note": "x" * 4001}, follow=True)
    assert "a note holds up to 4,000" in text_of(response) and not DocNote.objects.exists()


def test_a_note_needs_a_post(owner, ws):
    assert owner.get(reverse("pages:doc_note", args=[ws.doc.id])).status_code == 405


def test_a_note_is_escaped_on_the_page(owner, ws):
    owner.post(reverse("pages:doc_note", args=[ws.doc.id]), {"note": "<b>bold?</b>"})
    body = doc_page(owner, ws)
    assert "<b>bold?</b>" not in body and "&lt;b&gt;bold?&lt;/b&gt;" in body
