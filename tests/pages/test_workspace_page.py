"""The workspace page: the owner sees and downloads the files in each agent's folder and in shared, and nothing of
another workspace or outside the folders."""

import os

from django.urls import reverse

from core.actors import Actor
from core.context import ToolContext
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
