"""Search's copy taking over from mail's and files' live tools, account by account (spec tools/mail.md and
files.md): live search leaves out the accounts the copy holds whole, live read of what the copy holds points to
search.read, once every mail account is copied whole mail keeps only draft and send, and the how-tos say so."""

import pytest

from integrations.models import SearchCopy
from integrations.providers.local_files import LocalFilesProvider
from integrations.services import connection_create_local, connection_search_set
from search import sync, takeover
from tests.search.conftest import DAY, received
from tools.catalog import browse_description, browse_tools, find_tools
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def copied(org):
    """Sam's mailbox and files, with search on and copied whole."""
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "files"])
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    return connection


@pytest.fixture
def live(org):
    """The studio's mailbox and files, search off."""
    return connection_create_local(org=org, account="studio@fernhill.test", groups=["mail", "files"])


def test_until_the_first_copy_ends_the_live_tools_keep_the_account(ctx, copied, live):
    assert takeover.copied_whole(ctx.org, "mail") == []
    assert "mail.search" in browse_tools(ctx, ["mail"])["mail"]
    how = find_tools(ctx, ["mail.search"])["howTo"]["mail"]
    assert "In search" not in how  # word for word the spec's, with nothing in search yet


def test_live_search_leaves_out_the_accounts_search_holds_whole(ctx, copied, live):
    received(copied, sender="Dana <dana@juniper.test>", subject="Signage quote", text="Backlit signs", at=DAY)
    received(live, sender="Rosa <rosa@ortiz.test>", subject="Signage for the bakery", text="Two signs", at=DAY)
    assert sync.copy_run(copied) == "current"
    out = use_tool(ctx, "mail.search", {"query": "signage"})
    assert out["searched"] == ["studio@fernhill.test"]
    assert [h["title"] for h in out["hits"]] == ["Signage for the bakery"]
    files = use_tool(ctx, "files.search", {"query": "anything"})
    assert files["searched"] == ["studio@fernhill.test"]


def test_the_how_tos_say_which_accounts_are_read_where(ctx, copied, live):
    assert sync.copy_run(copied) == "current"
    how = find_tools(ctx, ["mail.search", "files.search"])["howTo"]
    assert "In search: sam@fernhill.test's mail" in how["mail"]
    assert "cover only what search doesn't hold yet: studio@fernhill.test." in how["mail"]
    assert "In search: sam@fernhill.test's files" in how["files"]


def test_reading_a_thread_the_copy_holds_points_to_search_read(ctx, copied, live):
    message = received(copied, sender="Dana <dana@juniper.test>", subject="Signage quote", text="Backlit", at=DAY)
    assert sync.copy_run(copied) == "current"
    hit = use_tool(ctx, "search.search", {"query": "backlit"})["results"][0]
    thread_id = f"{copied.account_key}:{message.thread.key}"  # the id mail.search gave for it
    out = use_tool(ctx, "mail.read", {"id": thread_id})
    assert out["error"] == "bad_input" and out["message"].startswith("id:")
    assert hit["thread"] in out["message"]
    assert "Backlit" in use_tool(ctx, "search.read", {"id": hit["thread"]})["text"]


def test_reading_a_file_the_copy_holds_points_to_search_read_and_a_folder_stays_live(ctx, copied):
    files = LocalFilesProvider(copied)
    folder = files.create_folder(name="Clients", parent_id=None).value
    brief = files.create_doc(name="Signage brief", markdown="Backlit signs.", folder_id=folder.id.split(":")[-1]).value
    assert sync.copy_run(copied) == "current"
    out = use_tool(ctx, "files.read", {"id": brief.id})
    assert out["error"] == "bad_input" and f"files:{brief.id}" in out["message"]
    assert use_tool(ctx, "files.read", {"id": folder.id})["items"][0]["title"] == "Signage brief"


def test_once_every_mail_account_is_copied_whole_mail_keeps_only_draft_and_send(ctx, copied):
    assert sync.copy_run(copied) == "current"
    assert sorted(browse_tools(ctx, ["mail"])["mail"]) == ["mail.draft", "mail.send"]
    assert "- mail: the owner's Gmail (2)" in browse_description(ctx.org)
    found = find_tools(ctx, ["mail.search", "mail.draft"])
    assert [f["name"] for f in found["found"]] == ["mail.draft"]
    assert found["no_such_tool"]["mail.search"] == ["mail.draft", "mail.send"]
    assert "mail keeps only draft and send" in found["howTo"]["mail"]
    out = use_tool(ctx, "mail.search", {"query": "x"})
    assert out["error"] == "unsupported" and "search.search" in out["message"]


def test_a_failed_or_turned_off_copy_gives_the_account_back_to_the_live_tools(ctx, copied):
    assert sync.copy_run(copied) == "current"
    SearchCopy.objects.filter(connection=copied).update(state=SearchCopy.State.FAILED)
    assert "mail.search" in browse_tools(ctx, ["mail"])["mail"]
    SearchCopy.objects.filter(connection=copied).update(state=SearchCopy.State.CURRENT, on=False)
    assert use_tool(ctx, "mail.search", {"query": "x"})["searched"] == ["sam@fernhill.test"]


def test_another_workspaces_copy_takes_nothing_over_here(ctx, other_org, live):
    theirs = connection_create_local(org=other_org, account="alex@other.test", groups=["mail"])
    connection_search_set(org=other_org, account_key=theirs.account_key, on=True)
    assert sync.copy_run(theirs) == "current"
    assert "mail.search" in browse_tools(ctx, ["mail"])["mail"]
