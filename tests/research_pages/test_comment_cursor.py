"""comments.list past one window: nextCursor, passed back as cursor, gives the next window, each top-level comment
with all its replies, to the end; a cursor that isn't one is bad_input naming it."""

import pytest

from research import page_selectors, page_services
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def discussion(org, monkeypatch):
    monkeypatch.setattr(page_selectors, "COMMENT_WINDOW", 5)
    page = page_services.page_request(org=org, project=ProjectFactory(organization=org, name="Harbor"),
                                      question="Who delivers?")
    for n in range(7):
        top = page_services.comment_add(page=page, text=f"comment {n}")
        if n == 1:
            for r in range(2):
                page_services.comment_add(page=page, text=f"reply {r}", parent=top)
    return page


def test_the_cursor_reads_the_whole_discussion_window_by_window(pages_on, use, discussion):
    first = use("comments.list", pageId=str(discussion.id))["comments"]
    assert [c["bodyMarkdown"] for c in first["items"]] == ["comment 0", "comment 1", "comment 2"]  # 5 with replies
    assert len(first["items"][1]["children"]["items"]) == 2 and first["nextCursor"]
    second = use("comments.list", pageId=str(discussion.id), cursor=first["nextCursor"])["comments"]
    assert [c["bodyMarkdown"] for c in second["items"]] == ["comment 3", "comment 4", "comment 5", "comment 6"]
    assert second["nextCursor"] is None


def test_a_cursor_that_isnt_one_is_bad_input(pages_on, use, discussion):
    out = use("comments.list", pageId=str(discussion.id), cursor="not-a-cursor")
    assert out["error"] == "bad_input" and out["message"].startswith("cursor:")
