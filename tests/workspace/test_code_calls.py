"""Tools from code: `from roadstar import ...` in Python and `import { ... } from "roadstar"` in Node reach the
agent's tools through the same use_tool pipeline and check, over the run's own socket. A call the check holds back
returns not_done_yet and the code carries on; a refused call raises ToolError; one that goes lands on Home."""

import pytest

from core.models import Change
from integrations.local.models_mail import HeldEmail
from integrations.services import connection_create_local
from records.models import Contact
from tests.workspace.conftest import needs_sandbox
from tools.pipeline import use_tool

pytestmark = [needs_sandbox, pytest.mark.django_db]

PYTHON = """
from roadstar import contacts, mail, ToolError
made = contacts.create(name="Dana Whitfield", emails=["dana@juniperdental.test"])
print("made", made["id"] is not None)
held = mail.send(to=["rosa@ortizbakery.test"], subject="Hello", text="Hi Rosa")
print("held", sorted(held))
try:
    contacts.create(name="")
except ToolError as error:
    print("refused", error.kind)
print("carried on")
"""

NODE = """
import { contacts, mail, ToolError } from "roadstar";
const made = await contacts.create({ name: "Dana Whitfield", emails: ["dana@juniperdental.test"] });
console.log("made", made.id !== undefined);
const held = await mail.send({ to: ["rosa@ortizbakery.test"], subject: "Hello", text: "Hi Rosa" });
console.log("held", Object.keys(held).sort().join(","));
try {
  await contacts.create({ name: "" });
} catch (error) {
  console.log("refused", error instanceof ToolError, error.kind);
}
console.log("carried on");
"""


@pytest.fixture
def checked(owner_says, org):
    connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])
    # Sam asked for a contact, not for an email to Rosa: the email is held back for Sam's yes.
    return owner_says("Add Dana Whitfield of Juniper Dental to my contacts.")


def _run(ctx, files: dict[str, str], command: str) -> dict:
    for path, text in files.items():
        assert "size" in use_tool(ctx, "workspace.write", {"path": path, "content": text})
    return use_tool(ctx, "workspace.bash", {"command": command})


@pytest.mark.parametrize("language, files, command", [
    ("python", {"script.py": PYTHON}, "python script.py"),
    ("node", {"script.js": NODE}, "node script.js"),
])
def test_code_calls_go_are_held_and_refused_like_the_agents_own(checked, org, language, files, command):
    out = _run(checked, files, command)
    lines = out["output"].splitlines()
    assert out["exitCode"] == 0, out["output"]
    assert lines[0] in ("made True", "made true")
    assert lines[1] in ("held ['not_done_yet']", "held not_done_yet")
    assert lines[2] in ("refused bad_input", "refused true bad_input")
    assert lines[3] == "carried on"
    # The one that went is a change on Home, made by the agent in its own thread, as if it had called the tool.
    change = Change.objects.get(tool="contacts.create")
    assert (change.actor_kind, change.conversation_id) == ("agent", checked.conversation_id)
    assert Contact.objects.filter(organization=org, name="Dana Whitfield").count() == 1
    assert HeldEmail.objects.count() == 0
    assert out["calls"]["contacts.create"]["calls"] == 2 and out["calls"]["contacts.create"]["done"] == 1
    assert out["calls"]["mail.send"]["notDoneYet"][0]["message"].startswith("Check with Sam first")


def test_a_run_stops_past_the_tool_call_limit(ctx, settings):
    settings.WORKSPACE_TOOL_CALLS = 3
    out = _run(ctx, {"loop.py": "from roadstar import contacts\nfor i in range(50):\n    contacts.list()\n"
                                "    print('call', i, flush=True)\n"}, "python loop.py")
    assert out["exitCode"] is None and out["stopped"].startswith("Stopped at 3 tool calls")
    assert "call 2" in out["output"] and "call 4" not in out["output"]


def test_a_call_without_the_runs_token_is_forbidden(ctx):
    script = ("import json, os, socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(os.environ['ROADSTAR_SOCKET'])\n"
              "s.sendall(json.dumps({'token': 'guess', 'tool': 'contacts.create', 'input': {'name': 'X'}})"
              ".encode() + b'\\n')\nprint(s.makefile().readline())\n")
    out = _run(ctx, {"forge.py": script}, "python forge.py")
    assert '"forbidden"' in out["output"]
    assert not Contact.objects.filter(name="X").exists()


def test_workspace_bash_cant_be_called_from_code(ctx):
    out = _run(ctx, {"nest.py": "from roadstar import workspace, ToolError\ntry:\n    workspace.bash(command='ls')\n"
                                "except ToolError as e:\n    print(e.kind)\n"}, "python nest.py")
    assert out["output"] == "bad_input\n"


def test_the_socket_is_not_the_network(ctx):
    out = _run(ctx, {"where.py": "import os\nprint(os.environ['ROADSTAR_SOCKET'])\n"}, "python where.py")
    assert out["output"].strip().startswith("/run/roadstar/")


def test_node_scripts_written_as_commonjs_reach_the_tools_too(ctx):
    script = ("const { contacts } = require(\"roadstar\");\n"
              "contacts.create({ name: \"Rosa Ortiz\" }).then((made) => console.log(\"made\", typeof made.id));\n")
    out = _run(ctx, {"old.cjs": script}, "node old.cjs")
    assert out["output"] == "made string\n", out
    assert Change.objects.filter(tool="contacts.create").count() == 1
