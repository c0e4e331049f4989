"""OneDrive through Microsoft Graph, against recorded answers in Graph's documented shapes (graph_recorded/): the
sign-in (PKCE, the account from the id token), search, a folder's pages, reading an Office file, a picture and an
older .doc through its PDF copy, an Office file opened into the workspace and saved back over its file (If-Match,
Undo), an expired sign-in's reconnect card, a 401 refreshed once, and the delta query keeping search's copy."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client
from django.utils import timezone

from core.actors import Actor
from core.models import Card, Change
from core.services import change_undo
from integrations.models import Connection, SearchCopy
from integrations.providers.onedrive import OneDriveProvider, share_token
from integrations.providers.registry import provider_for
from integrations.services import connection_save_oauth, connection_search_set
from search import sync
from search.models import SearchItem
from tests.integrations.conftest import an_hour_ago, in_an_hour
from tests.integrations.fakes import unsigned_id_token
from tests.integrations.files_samples import PNG, docx, pdf, xlsx
from tests.integrations.graph_fakes import DRIVE, MS_SETTINGS, RecordedGraph, recorded
from workspace import folders
from workspace import services as workspace_services

pytestmark = pytest.mark.django_db

READ = ["Files.Read.All", "User.Read", "openid", "email", "offline_access"]
WRITE = [*READ, "Files.ReadWrite.All"]
PROPOSAL = "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K"
HOURS = "01BYE5RZ4MYQYCFW5RA5GJ4SQA4DMVQ2OB"
OLD = "01BYE5RZ2PLHLIXGKQFBF3BCCQ3HPJF5IY"
PHOTO = "01BYE5RZ3WQ5TSU7YZTNBZTVBVLL3RZ4SY"
ROOT = "01BYE5RZ56Y2GOVW7725BZO354PWSELRRZ"


@pytest.fixture(autouse=True)
def ms_settings(settings, tmp_path):
    for name, value in MS_SETTINGS.items():
        setattr(settings, name, value)
    settings.ROADSTAR_FILES_ROOT = str(tmp_path / "files")


@pytest.fixture
def graph(monkeypatch):
    recorded_graph = RecordedGraph()
    monkeypatch.setattr("integrations.clients.graph_session", lambda: recorded_graph)
    monkeypatch.setattr("integrations.oauth.microsoft_session", lambda: recorded_graph)
    return recorded_graph


def save_onedrive(org, *, scopes=READ, expiry=None, account="sam@fernhill.test"):
    connection, _ = connection_save_oauth(
        org=org, actor=Actor.for_user(org.owner), app="microsoft", account=account, scopes=list(scopes),
        tokens={"access_token": "ms-access-1", "refresh_token": "0.AXEAms-refresh-1", "expiry": expiry or in_an_hour()},
    )
    return connection


@pytest.fixture
def onedrive(org):
    return save_onedrive(org)


def fid(connection, item: str) -> str:
    return f"{connection.account_key}:{DRIVE}~{item}"


# --- sign-in ------------------------------------------------------------------------------------------------


def test_the_sign_in_asks_microsoft_with_pkce_and_stores_the_account_from_the_id_token(org, graph):
    owner = Client()
    owner.force_login(org.owner)
    started = owner.post("/connections/microsoft/start")
    url = urlparse(started["Location"])
    query = parse_qs(url.query)
    assert (url.netloc, url.path) == ("login.microsoftonline.com", "/common/oauth2/v2.0/authorize")
    assert set(query["scope"][0].split()) == {"openid", "email", "offline_access", "https://graph.microsoft.com/User.Read",
                                              "https://graph.microsoft.com/Files.Read.All"}
    verifier = owner.session["integrations.oauth.microsoft"]["code_verifier"]
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert (query["code_challenge"][0], query["code_challenge_method"][0]) == (challenge, "S256")

    token = {**recorded("token"), "id_token": unsigned_id_token({"preferred_username": "sam@fernhill.test",
                                                                 "tid": "9188040d", "oid": "00000000"})}
    graph.on("POST", r"login\.microsoftonline\.com/common/oauth2/v2\.0/token$", token)
    back = owner.get("/connections/microsoft/callback", {"state": query["state"][0], "code": "M.C105_BAY.2.U.code"})
    assert back["Location"] == "/connections/"
    sent = graph.calls[0]
    assert (sent["data"]["grant_type"], sent["data"]["code"], sent["data"]["code_verifier"]) == (
        "authorization_code", "M.C105_BAY.2.U.code", verifier)
    connection = Connection.objects.get(organization=org)
    assert (connection.app, connection.account, connection.groups) == ("microsoft", "sam@fernhill.test", ["files"])
    assert connection.read_tokens()["refresh_token"] == "0.AXEAms-refresh-1"
    assert not connection.can_write("files")  # read first; files.save asks to connect again for writing


def test_a_callback_with_another_state_connects_nothing(org, graph):
    owner = Client()
    owner.force_login(org.owner)
    owner.post("/connections/microsoft/start")
    reply = owner.get("/connections/microsoft/callback", {"state": "forged", "code": "x"})
    assert (reply.status_code, Connection.objects.filter(organization=org).count(), graph.calls) == (400, 0, [])


def test_the_connect_page_says_how_to_register_the_app_when_it_isnt_set_up(org, settings):
    settings.MICROSOFT_CLIENT_ID = None
    owner = Client()
    owner.force_login(org.owner)
    page = owner.get("/connections/microsoft/").content.decode()
    assert "MICROSOFT_CLIENT_ID" in page and "App registrations" in page and "Files.Read.All" in page
    assert "/connections/microsoft/callback" in page


def test_integrations_list_offers_onedrive_and_connect_makes_its_card(use, org):
    listed = use("integrations.list")
    assert {"integration": "microsoft", "app": "OneDrive"} in listed["canConnect"] and listed["notYet"] == []
    out = use("integrations.connect", integration="onedrive", why="to read the October timesheets")
    assert out["card"].startswith("Connect OneDrive")


# --- reading ------------------------------------------------------------------------------------------------


def test_search_uses_microsoft_search_and_gives_ids_that_carry_the_account(use, onedrive, graph):
    graph.on("POST", r"/search/query$", "search_query")
    out = use("files.search", query='juniper filetype:docx', limit=2)
    sent = graph.asked("POST", r"/search/query$")[0]
    assert sent["json"]["requests"][0] == {"entityTypes": ["driveItem"], "from": 0, "size": 2,
                                           "query": {"queryString": "juniper filetype:docx"}}
    assert sent["headers"]["Authorization"] == "Bearer ms-access-1"
    first = out["hits"][0]
    assert first["id"] == fid(onedrive, PROPOSAL) and first["title"] == "Juniper proposal.docx"
    assert (first["type"], first["who"], first["source"]) == ("doc", "Dana Ortiz", "sam@fernhill.test")
    assert first["snippet"] == "Proposal for Juniper Dental: new patient forms"
    assert out["hits"][1]["type"] == "sheet" and out["searched"] == ["sam@fernhill.test"] and out["nextPage"]
    graph.on("POST", r"/search/query$", {"value": [{"hitsContainers": [{"hits": [], "moreResultsAvailable": False}]}]})
    use("files.search", query="juniper", limit=2, page=out["nextPage"])
    assert graph.asked("POST", r"/search/query$")[1]["json"]["requests"][0]["from"] == 2


def test_reading_an_office_file_gives_its_text(use, onedrive, graph):
    graph.on("GET", rf"/drives/{DRIVE}/items/{PROPOSAL}$", "item_proposal", repeat=True)
    graph.on("GET", rf"/items/{PROPOSAL}/content$", docx(["New patient forms, printed and online."], "Proposal"))
    out = use("files.read", id=fid(onedrive, PROPOSAL))
    assert "New patient forms" in out["text"] and out["title"] == "Juniper proposal.docx"
    assert out["url"].startswith("https://fernhill-my.sharepoint.com/")


def test_an_older_doc_is_read_from_graphs_pdf_copy(use, onedrive, graph):
    graph.on("GET", rf"/items/{OLD}$", "item_old", repeat=True)
    graph.on("GET", rf"/items/{OLD}/content$", pdf("Price list: delivery 12 dollars"))
    out = use("files.read", id=fid(onedrive, OLD))
    assert "delivery 12 dollars" in out["text"]
    assert graph.asked("GET", r"/content$")[0]["params"] == {"format": "pdf"}


def test_a_picture_comes_back_as_an_image(use, onedrive, graph):
    graph.on("GET", rf"/items/{PHOTO}$", "item_photo", repeat=True)
    graph.on("GET", rf"/items/{PHOTO}/content$", PNG)
    out = use("files.read", id=fid(onedrive, PHOTO))
    assert out["image"]["mimeType"] == "image/jpeg" and out["text"] == ""


def test_a_folder_reads_as_its_items_folders_first_with_the_next_page(use, onedrive, graph):
    graph.on("GET", rf"/items/{ROOT}$", "item_root", repeat=True)
    graph.on("GET", rf"/items/{ROOT}/children$", "children")
    out = use("files.read", id=fid(onedrive, ROOT))
    assert [i["title"] for i in out["items"]] == ["Clients", "October hours.xlsx"]
    assert out["items"][0]["type"] == "folder" and out["nextPage"].startswith("https://graph.microsoft.com/v1.0/")
    graph.on("GET", r"\$skiptoken=", "children_page2")
    more = use("files.read", id=fid(onedrive, ROOT), page=out["nextPage"])
    assert [i["title"] for i in more["items"]] == ["Price list 2019.doc", "Storefront.jpg"]


def test_a_page_that_isnt_graphs_own_is_refused_before_any_token_goes_out(use, onedrive, graph):
    graph.on("GET", rf"/items/{ROOT}$", "item_root", repeat=True)
    out = use("files.read", id=fid(onedrive, ROOT), page="https://evil.test/children?x=1")
    assert out["error"] == "bad_input" and out["message"].startswith("page:")
    assert not [c for c in graph.calls if "evil" in c["url"]]


def test_a_malformed_id_is_not_found_without_asking_graph(use, onedrive, graph):
    out = use("files.read", id=f"{onedrive.account_key}:{DRIVE}~../../me/messages")
    assert out["error"] == "not_found" and graph.calls == []


def test_a_pasted_onedrive_link_opens_through_graphs_shares(use, onedrive, graph):
    link = "https://fernhill-my.sharepoint.com/:w:/g/personal/sam_fernhill_test/EYk2bS0dQp1Hn?e=4hXx2p"
    token = share_token(link)
    assert token.startswith("u!") and "=" not in token
    graph.on("GET", rf"/shares/{token}/driveItem$", "item_proposal", repeat=True)
    graph.on("GET", rf"/shares/{token}/driveItem/content$", docx(["Shared with Sam."]))
    out = use("files.read", id=link)
    assert out["id"] == fid(onedrive, PROPOSAL) and "Shared with Sam." in out["text"]
    live = "https://onedrive.live.com/?id=D4648F06C91D9D3D%2154927&cid=D4648F06C91D9D3D"
    assert OneDriveProvider.id_from_link(live) == "d4648f06c91d9d3d~D4648F06C91D9D3D!54927"
    assert OneDriveProvider.id_from_link("https://docs.google.com/document/d/1Abcdefghijk/edit") is None


def test_writes_other_than_save_say_plainly_they_arent_done_in_onedrive(use, onedrive, graph):
    graph.on("GET", rf"/items/{PROPOSAL}$", "item_proposal", repeat=True)
    out = use("files.rename", id=fid(onedrive, PROPOSAL), name="Juniper proposal v2.docx")
    assert out["error"] in ("unsupported", "reauth")
    connection = save_onedrive(onedrive.organization, scopes=WRITE)
    out = use("files.rename", id=fid(connection, PROPOSAL), name="Juniper proposal v2.docx")
    assert out["error"] == "unsupported" and "workspace" in out["message"]


# --- an Office file opened into the workspace and saved back ----------------------------------------------------


def test_an_office_file_opened_into_the_workspace_is_saved_back_over_it_and_undone(use, org, graph, ctx):
    connection = save_onedrive(org, scopes=WRITE)
    before = xlsx({"October": [["Client", "Hours"], ["Juniper Dental", 46.5]]})
    after = xlsx({"October": [["Client", "Hours"], ["Juniper Dental", 48]]})
    item = recorded("item_hours")
    saved = {**item, "eTag": '"{4DMVQ2OB},4"', "size": len(after)}
    graph.on("GET", rf"/items/{HOURS}$", item, repeat=True)  # the file's facts
    graph.on("GET", rf"/items/{HOURS}/content$", before, repeat=True)  # and its bytes
    opened = use("workspace.open", files=[fid(connection, HOURS)])["opened"][0]
    assert opened["from"] == fid(connection, HOURS) and opened["path"].endswith("October hours.xlsx")

    # Code in the workspace changes the spreadsheet (written here as the sandbox's code would leave it).
    where = workspace_services.place(org=org, actor=ctx.actor)
    target = folders.target(where, opened["path"], field="path")
    folders.write_bytes(target, after, raw=target.shown, field="path")

    graph.on("PUT", rf"/items/{HOURS}/content$", saved)
    out = use("files.save", workspace=opened["path"], over=opened["from"])
    assert out["id"] == fid(connection, HOURS), out
    put = graph.asked("PUT", r"/content$")[0]
    assert put["data"] == after and put["headers"]["If-Match"] == item["eTag"]
    change = Change.objects.filter(organization=org, tool="files.save").latest("at")

    graph.on("GET", rf"/items/{HOURS}$", saved, repeat=True)  # Undo: still as the save left it
    graph.on("PUT", rf"/items/{HOURS}/content$", {**item, "eTag": '"{4DMVQ2OB},5"'})
    change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    put_back = graph.asked("PUT", r"/content$")[1]
    assert put_back["data"] == before and put_back["headers"]["If-Match"] == saved["eTag"]


def test_saving_over_a_file_changed_meanwhile_answers_changed(use, org, graph, tmp_path):
    connection = save_onedrive(org, scopes=WRITE)
    use("workspace.write", path="notes.txt", content="from the workspace")
    item = {**recorded("item_hours"), "name": "notes.txt", "file": {"mimeType": "text/plain"}}
    graph.on("GET", rf"/items/{HOURS}$", item, repeat=True)
    graph.on("GET", rf"/items/{HOURS}/content$", b"before")
    graph.on("PUT", rf"/items/{HOURS}/content$", "error_412", status=412)
    out = use("files.save", workspace="notes.txt", over=fid(connection, HOURS))
    assert out["error"] == "changed"


def test_a_new_file_is_saved_without_overwriting_and_undo_deletes_it(use, org, graph):
    save_onedrive(org, scopes=WRITE)
    use("workspace.write", path="october.csv", content="Client,Hours\nJuniper Dental,46.5\n")
    made = {**recorded("item_hours"), "id": "01BYE5RZNEWFILE0000000000000000000", "name": "October.csv",
            "file": {"mimeType": "text/csv"}}
    graph.on("GET", r"/me/drive$", "me_drive", repeat=True)
    graph.on("PUT", r"/me/drive/root:/October\.csv:/content$", made)
    out = use("files.save", workspace="october.csv", name="October.csv")
    sent = graph.asked("PUT", r"/content$")[0]
    assert sent["params"] == {"@microsoft.graph.conflictBehavior": "rename"} and out["name"] == "October.csv"
    change = Change.objects.filter(organization=org, tool="files.save").latest("at")
    graph.on("GET", r"/items/01BYE5RZNEWFILE0000000000000000000$", made)
    graph.on("DELETE", r"/items/01BYE5RZNEWFILE0000000000000000000$", b"", status=204)
    change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    assert graph.asked("DELETE", r"/items/")[0]["headers"]["If-Match"] == made["eTag"]


def test_saving_with_a_read_only_sign_in_asks_to_connect_again_for_writing(use, onedrive, graph):
    use("workspace.write", path="notes.txt", content="x")
    out = use("files.save", workspace="notes.txt", over=fid(onedrive, HOURS))
    assert out["error"] == "reauth" and graph.calls == []
    card = Card.objects.get(organization=onedrive.organization, kind="reconnect")
    assert card.data["write_groups"] == ["files"]


# --- an expired sign-in ---------------------------------------------------------------------------------------


def test_an_expired_sign_in_that_microsoft_refuses_puts_a_reconnect_card_on_home(use, org, graph):
    connection = save_onedrive(org, expiry=an_hour_ago())
    graph.on("POST", r"/oauth2/v2\.0/token$", "token_invalid_grant", status=400)
    out = use("files.search", query="juniper")
    assert out["hits"] == [] and out["failed"][0]["kind"] == "reauth"
    assert out["failed"][0]["integration"] == "microsoft"
    connection.refresh_from_db()
    assert connection.status == Connection.Status.NEEDS_RECONNECT
    card = Card.objects.get(organization=org, kind="reconnect")
    assert card.data["account_key"] == connection.account_key and "sam@fernhill.test" in card.title
    read = use("files.read", id=fid(connection, PROPOSAL))
    assert read["error"] == "reauth"


def test_an_expired_token_is_refreshed_and_the_new_refresh_token_kept(use, org, graph):
    connection = save_onedrive(org, expiry=an_hour_ago())
    graph.on("POST", r"/oauth2/v2\.0/token$", "token_refreshed")
    graph.on("GET", rf"/items/{PROPOSAL}$", "item_proposal")
    provider_for(connection, "files").get(f"{DRIVE}~{PROPOSAL}")
    sent = graph.calls[0]["data"]
    assert (sent["grant_type"], sent["refresh_token"]) == ("refresh_token", "0.AXEAms-refresh-1")
    assert "https://graph.microsoft.com/Files.Read.All" in sent["scope"].split()
    assert graph.calls[1]["headers"]["Authorization"] == "Bearer ms-access-2"
    connection.refresh_from_db()
    assert connection.read_tokens()["refresh_token"] == "0.AXEAms-refresh-2"


def test_a_401_refreshes_once_and_tries_again(onedrive, graph):
    graph.on("GET", rf"/items/{PROPOSAL}$", "error_401", status=401)
    graph.on("POST", r"/oauth2/v2\.0/token$", "token_refreshed")
    graph.on("GET", rf"/items/{PROPOSAL}$", "item_proposal")
    meta = provider_for(onedrive, "files").get(f"{DRIVE}~{PROPOSAL}")
    assert meta.name == "Juniper proposal.docx" and len(graph.asked("GET", "/items/")) == 2


def test_graph_throttling_is_rate_limited(use, onedrive, graph):
    graph.on("POST", r"/search/query$", "error_429", status=429)
    out = use("files.search", query="juniper")
    assert out["failed"][0]["kind"] == "rate_limited"


# --- the delta query: routines' events and search's copy -------------------------------------------------------


def test_changes_start_at_the_latest_token_and_give_what_changed(onedrive, graph):
    provider = provider_for(onedrive, "files")
    graph.on("GET", r"/me/drive/root/delta$", "delta_latest")
    start = provider.changes(None)
    assert graph.calls[0]["params"] == {"token": "latest"} and start.items == []
    graph.on("GET", r"delta\?token=aTE09NjM2NTQ5NjY4Njc4NDC", "delta_changes")
    changed = provider.changes(start.cursor)
    assert [m.name for m in changed.items] == ["October hours.xlsx"]
    assert changed.cursor.endswith("aTE09NjM2NTQ5NjY4Njc4NDB")


def test_search_copies_a_onedrive_account_by_delta_and_keeps_it_current(org, graph):
    connection = save_onedrive(org)
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    session = RecordedGraph()
    session.on("GET", r"/me/drive/root/delta$", "delta_first")
    session.on("GET", r"delta\?token=MzslMjM0OyUyMzE7MzsxNjQ3", "delta_last")
    session.on("GET", rf"/items/{PROPOSAL}/content$", docx(["Proposal for Juniper Dental"]))
    session.on("GET", rf"/items/{HOURS}/content$", xlsx({"October": [["Juniper Dental", 46.5]]}))
    session.on("GET", rf"/items/{OLD}/content$", pdf("Price list 2019"))
    assert sync.copy_run(connection, http={"files": session}) == "current"
    items = {i.title: i for i in SearchItem.objects.filter(connection_id=connection.id)}
    assert set(items) == {"Juniper proposal.docx", "October hours.xlsx", "Price list 2019.doc", "Storefront.jpg"}
    assert items["Juniper proposal.docx"].key == f"files:{connection.account_key}:{DRIVE}~{PROPOSAL}"
    assert "Proposal for Juniper Dental" in items["Juniper proposal.docx"].body
    assert list(items["Juniper proposal.docx"].places.values_list("place", flat=True)) == ["clients"]
    copy = SearchCopy.objects.get(connection=connection)
    assert copy.position["onedrive_delta"].endswith("aTE09NjM2NTQ5NjY4Njc4NDA") and copy.first_synced_at

    later = RecordedGraph()
    later.on("GET", r"delta\?token=aTE09NjM2NTQ5NjY4Njc4NDA", "delta_changes")
    later.on("GET", rf"/items/{HOURS}/content$", xlsx({"October": [["Juniper Dental", 48]]}))
    assert sync.copy_run(connection, http={"files": later}) == "current"
    titles = set(SearchItem.objects.filter(connection_id=connection.id).values_list("title", flat=True))
    assert "Price list 2019.doc" not in titles and "October hours.xlsx" in titles


def test_a_delta_token_graph_no_longer_takes_lists_the_drive_again(org, graph):
    connection = save_onedrive(org)
    connection_search_set(org=org, account_key=connection.account_key, on=True)
    SearchCopy.objects.filter(connection=connection).update(
        position={"onedrive_delta": "https://graph.microsoft.com/v1.0/me/drive/root/delta?token=old"},
        first_synced_at=timezone.now())
    session = RecordedGraph()
    session.on("GET", r"delta\?token=old", "error_410_resync", status=410)
    session.on("GET", r"/me/drive/root/delta$", {"value": [], "@odata.deltaLink":
                                                 "https://graph.microsoft.com/v1.0/me/drive/root/delta?token=new"})
    assert sync.copy_run(connection, http={"files": session}) == "current"
    assert SearchCopy.objects.get(connection=connection).position["onedrive_delta"].endswith("token=new")

