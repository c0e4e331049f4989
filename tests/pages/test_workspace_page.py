"""The workspace page: the owner sees and downloads the files in each agent's folder and in shared, and nothing of
another workspace or outside the folders."""

import os

import pytest
from django.urls import reverse

from core.actors import Actor
from core.context import ToolContext
from core.errors import ToolError
from tests.factories import AgentFactory
from tools.pipeline import use_tool
from workspace import folders


def test_the_owner_sees_each_agents_files_and_shared(owner, org, agent):
    ctx = ToolContext(org=org, actor=Actor.for_agent(agent))
    use_tool(ctx, "workspace.write", {"path": "reports/october.csv", "content": "Client,Hours\n"})
    use_tool(ctx, "workspace.write", {"path": "/work/shared/for-bookkeeper.md", "content": "totals"})
    page = owner.get(reverse("pages:workspace")).content.decode()
    assert "Client desk&#x27;s folder" in page and "reports/october.csv" in page and "for-bookkeeper.md" in page
    download = owner.get(reverse("pages:workspace_file", args=[str(agent.id), "reports/october.csv"]))
    assert (download.status_code, download.content) == (200, b"Client,Hours\n")
    assert download["Content-Disposition"].startswith("attachment;")
    shared = owner.get(reverse("pages:workspace_file", args=["shared", "for-bookkeeper.md"]))
    assert shared.content == b"totals"


def test_another_workspaces_agent_and_paths_outside_are_404(owner, org, agent, other_org, tmp_path):
    stranger = AgentFactory(organization=other_org, name="Stranger")
    theirs = ToolContext(org=other_org, actor=Actor.for_agent(stranger))
    use_tool(theirs, "workspace.write", {"path": "secret.txt", "content": "theirs"})
    assert owner.get(reverse("pages:workspace_file", args=[str(stranger.id), "secret.txt"])).status_code == 404
    assert "secret.txt" not in owner.get(reverse("pages:workspace")).content.decode()
    place = folders.place_for(org=org, actor=Actor.for_agent(agent))
    place.ensure()
    (tmp_path / "outside.txt").write_text("server file")
    os.symlink(tmp_path / "outside.txt", place.folder / "link.txt")
    for path in ("link.txt", "../../shared/x", "shared/../../x"):
        assert owner.get(f"/workspace/{agent.id}/{path}").status_code == 404, path


def test_signed_out_is_sent_to_sign_in(client):
    assert client.get(reverse("pages:workspace")).status_code == 302


# --- names a run can leave, and downloads that never run ------------------------------------------------------


def _agent_ctx(org, agent):
    return ToolContext(org=org, actor=Actor.for_agent(agent))


def test_odd_names_are_refused_at_the_edge_with_words(org, agent):
    ctx = _agent_ctx(org, agent)
    newline = use_tool(ctx, "workspace.write", {"path": "notes\nevil.txt", "content": "x"})
    assert newline["error"] == "bad_input" and "control character (a line break" in newline["message"]
    not_utf8 = use_tool(ctx, "workspace.write", {"path": "bad\udcff.txt", "content": "x"})
    # Refused as the tool's input is read (a lone surrogate is what a name that isn't UTF-8 becomes in JSON), and
    # by the folder's own check for any caller that gets past that (folders.check_path).
    assert not_utf8["error"] == "bad_input" and "surrogate" in not_utf8["message"]
    with pytest.raises(ToolError, match="isn't valid UTF-8"):
        folders.check_path("bad\udcff.txt")
    long = use_tool(ctx, "workspace.write", {"path": "a" * 300 + ".txt", "content": "x"})
    assert long["error"] == "bad_input" and "304 bytes long" in long["message"]
    assert "255 bytes at most" in long["message"] and "Errno" not in long["message"]
    for path in ("notes\nevil.txt", "a" * 300 + ".txt"):
        assert use_tool(ctx, "workspace.read", {"path": path})["error"] == "bad_input"
    place = folders.place_for(org=org, actor=Actor.for_agent(agent))
    assert not place.folder.exists() or os.listdir(place.folder) == [] or all(
        "evil" not in name for name in os.listdir(place.folder))


def test_a_file_with_a_line_break_or_bytes_not_utf8_lists_downloads_and_deletes(owner, org, agent):
    place = folders.place_for(org=org, actor=Actor.for_agent(agent))
    place.ensure()
    # Left by a run (its shell can name a file anything): the page must never fail on them.
    (place.folder / "line\nbreak.txt").write_text("one")
    with open(os.path.join(os.fsencode(place.folder), b"latin\xe9.txt"), "wb") as f:
        f.write(b"two")
    (place.folder / ("b" * 250 + ".txt")).write_text("three")
    page = owner.get(reverse("pages:workspace"))
    assert page.status_code == 200
    text = page.content.decode()
    assert "line\\nbreak.txt" in text and "latin\\xe9.txt" in text and "b" * 250 in text
    keys = {f["path"]: f["key"] for f in folders.listing(place.folder)}
    for shown, data in (("line\\nbreak.txt", b"one"), ("latin\\xe9.txt", b"two")):
        key = keys[shown]
        assert reverse("pages:workspace_file_by_key", args=[str(agent.id), key]) in text
        download = owner.get(reverse("pages:workspace_file_by_key", args=[str(agent.id), key]))
        assert (download.status_code, download.content) == (200, data)
        assert download["Content-Disposition"].startswith("attachment; filename*=UTF-8''")
        assert "\n" not in download["Content-Disposition"]
        delete = reverse("pages:workspace_file_delete", args=[str(agent.id), key])
        assert delete in text
        assert owner.get(delete).status_code == 405  # a delete is a POST, never a link followed
        assert owner.post(delete).status_code == 302
    assert sorted(os.listdir(place.folder)) == sorted(["b" * 250 + ".txt", "inbox", "shared"])
    assert owner.post(reverse("pages:workspace_file_delete", args=[str(agent.id), keys["line\\nbreak.txt"]])
                      ).status_code == 404


def test_a_delete_key_never_leads_out_of_the_folder(owner, org, agent, tmp_path):
    place = folders.place_for(org=org, actor=Actor.for_agent(agent))
    place.ensure()
    (tmp_path / "outside.txt").write_text("server file")
    os.symlink(tmp_path, place.folder / "link")
    for rel in (b"../../shared/x", b"link/outside.txt", str(tmp_path / "outside.txt").encode(), b"", b"a\x00b"):
        assert owner.post(reverse("pages:workspace_file_delete", args=[str(agent.id), rel.hex() or "00"])
                          ).status_code == 404, rel
        assert owner.get(reverse("pages:workspace_file_by_key", args=[str(agent.id), rel.hex() or "00"])
                         ).status_code == 404
    assert (tmp_path / "outside.txt").read_text() == "server file"


def test_a_js_or_html_file_downloads_as_bytes_never_as_script(owner, org, agent):
    ctx = _agent_ctx(org, agent)
    use_tool(ctx, "workspace.write", {"path": "evil.js", "content": "alert(document.cookie)"})
    use_tool(ctx, "workspace.write", {"path": "evil.html", "content": "<script>alert(1)</script>"})
    use_tool(ctx, "workspace.write", {"path": "report.csv", "content": "a,b\n"})
    for name in ("evil.js", "evil.html"):
        download = owner.get(reverse("pages:workspace_file", args=[str(agent.id), name]))
        assert download.status_code == 200
        assert download["Content-Type"] == "application/octet-stream"
        assert download["Content-Disposition"] == f"attachment; filename*=UTF-8''{name}"
        assert download["X-Content-Type-Options"] == "nosniff"
        assert "sandbox" in download["Content-Security-Policy"]
    csv = owner.get(reverse("pages:workspace_file", args=[str(agent.id), "report.csv"]))
    assert csv["Content-Type"].startswith("text/csv") and csv["X-Content-Type-Options"] == "nosniff"
