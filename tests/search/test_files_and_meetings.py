"""The copy of a local account's files (their text, folders, changes, the trash) and meetings (added, changed,
cancelled), kept current by the sync's positions."""

import datetime

import pytest

from integrations.local.models_calendar import LocalEvent
from integrations.providers.local_calendar import event_put
from integrations.providers.local_files import LocalFilesProvider
from integrations.services import connection_create_local, connection_search_set
from search import sync
from tests.search.conftest import DAY
from tools.pipeline import use_tool

pytestmark = pytest.mark.django_db


@pytest.fixture
def drive(org):
    connection = connection_create_local(org=org, account="sam@fernhill.test", groups=["files", "calendar"])
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    return connection


def titles(ctx, **inp):
    out = use_tool(ctx, "search.search", inp)
    assert "error" not in out, out
    return sorted(r["title"] for r in out["results"])


def test_files_are_copied_with_their_text_and_folders_and_follow_their_changes(ctx, drive):
    files = LocalFilesProvider(drive)
    clients = files.create_folder(name="Clients", parent_id=None).value
    juniper = files.create_folder(name="Juniper Dental", parent_id=clients.id.split(":")[-1]).value
    brief = files.create_doc(name="Signage brief", markdown="Backlit signs for two clinics.",
                             folder_id=juniper.id.split(":")[-1]).value
    files.create_sheet(name="Hours", rows=[["Who", "Hours"], ["Sam", "12"]], folder_id=None)
    assert sync.copy_run(drive) == "current"
    assert titles(ctx, query="backlit") == ["Signage brief"]
    assert titles(ctx, **{"in": ["Clients › Juniper Dental"]}) == ["Signage brief"]
    assert titles(ctx, **{"in": ["Clients"]}) == ["Signage brief"]  # a folder holds what its folders hold
    assert titles(ctx, type=["sheet"]) == ["Hours"]
    found = use_tool(ctx, "search.search", {"query": "backlit"})["results"][0]
    read = use_tool(ctx, "search.read", {"id": found["id"]})
    assert "Backlit signs" in read["text"] and read["source"] == "sam@fernhill.test"

    file_id = brief.id.split(":")[-1]
    files.replace_text(file_id, find="Backlit", replace="Neon")
    sync.copy_run(drive)
    assert titles(ctx, query="neon") == ["Signage brief"] and titles(ctx, query="backlit") == []
    files.undo({"op": "trash", "file": file_id})  # the file goes to the trash
    sync.copy_run(drive)
    assert titles(ctx, query="neon") == []


def test_meetings_are_copied_and_follow_their_changes(ctx, drive):
    start = DAY + datetime.timedelta(days=2)
    event_put(drive, uid="kickoff", title="Kickoff with Juniper Dental", start=start,
              end=start + datetime.timedelta(hours=1), guests=["dana@juniperdental.test"], location="Studio")
    sync.copy_run(drive)
    out = use_tool(ctx, "search.search", {"with": ["dana@juniperdental.test"], "type": ["meeting"]})
    assert [r["title"] for r in out["results"]] == ["Kickoff with Juniper Dental"]
    assert "Guests: dana@juniperdental.test" in use_tool(ctx, "search.read", {"id": out["results"][0]["id"]})["text"]
    event_put(drive, uid="kickoff", title="Kickoff moved", start=start, end=start + datetime.timedelta(hours=1),
              guests=["dana@juniperdental.test"])
    sync.copy_run(drive)
    assert titles(ctx, type=["meeting"]) == ["Kickoff moved"]
    event_put(drive, uid="kickoff", title="Kickoff moved", start=start, end=start + datetime.timedelta(hours=1),
              guests=["dana@juniperdental.test"], cancelled=True)
    sync.copy_run(drive)
    assert titles(ctx, type=["meeting"]) == []
    event_put(drive, uid="other", title="Other", start=start, end=start)
    sync.copy_run(drive)
    LocalEvent.objects.filter(connection=drive, uid="other").delete()
    assert titles(ctx, type=["meeting"]) == []


def test_a_second_worker_waits_for_the_claim(ctx, drive):
    from integrations.models import SearchCopy

    copy = SearchCopy.objects.get(connection=drive)
    assert sync._claim(copy.pk) is not None
    assert sync.copy_run(drive) == "busy"
