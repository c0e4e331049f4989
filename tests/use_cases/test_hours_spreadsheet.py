"""spec/use-cases/hours-spreadsheet.md end to end on the example workspace, with the check on and the scripted
model: Bookkeeper opens the timesheet Sheet into the workspace, totals October with pandas in the sandbox, and
saves the summary to Drive (the local files) as a new Sheet with Undo."""

import json

import pytest

from agents import services as agent_services
from agents.models import Agent, Conversation, Message
from agents.runtime.model import call, say, set_model
from agents.runtime.turn import drain
from core.actors import Actor
from core.models import Change
from core.services import change_undo
from integrations.local.models_files import LocalFile
from tests.use_cases.staff_script import StaffScript
from tests.workspace.conftest import needs_sandbox

pytestmark = needs_sandbox

TIMESHEET = "7c41e2d0:1TsTimesheet2026SheetX4"
SCRIPT = (
    "import pandas as pd\n\nhours = pd.read_excel('/work/inbox/Timesheet 2026.xlsx', sheet_name='Log')\n"
    "october = hours[(hours['Date'] >= '2026-10-01') & (hours['Date'] < '2026-11-01')]\n"
    "by_client = october.groupby('Client', as_index=False)['Hours'].sum().sort_values('Hours', ascending=False)\n"
    "by_client.to_excel('october-hours.xlsx', index=False)\nprint(by_client.to_string(index=False))\n"
    "print('Total', by_client['Hours'].sum())\n"
)
ANSWER = ("October: 90 hours across three clients. Juniper Dental 46.5, Ortiz Bakery 31, Harbor Florists 12.5. "
          "The sheet is in Bookkeeping 2026 in Drive.")


@pytest.fixture
def results():
    def of(request):
        return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]

    return of


def test_a_month_of_hours_end_to_end(fernhill, results):
    org = fernhill
    bookkeeper = Agent.objects.get(organization=org, name="Bookkeeper")
    staff = StaffScript()
    staff.on("Bookkeeper", "chat",
             call("start_thread", {"title": "October hours",
                                   "task": "Total October's hours per client from the timesheet, for invoicing."}),
             say("Started a thread on October hours."),
             say(ANSWER))
    staff.on("Bookkeeper", "October hours",
             call("use_tool", {"name": "files.search", "input": {"query": "Timesheet 2026"}}),
             call("use_tool", {"name": "workspace.open", "input": {"files": [TIMESHEET]}}),
             call("use_tool", {"name": "workspace.write", "input": {"path": "october.py", "content": SCRIPT}}),
             call("use_tool", {"name": "workspace.bash", "input": {"command": "python october.py"}}),
             call("use_tool", {"name": "files.save", "input": {
                 "workspace": "october-hours.xlsx", "name": "October 2026 hours by client", "asGoogle": True,
                 "folderId": "7c41e2d0:1FoBookkeeping2026"}}),
             say(ANSWER))
    set_model(staff)
    try:
        agent_services.owner_message_send(org=org, agent=bookkeeper, text=(
            "Can you total October's hours per client from the timesheet? I need it for invoicing."))
        drain(org_id=org.id)
    finally:
        set_model(None)

    thread = Conversation.objects.get(kind="thread", title="October hours")
    tool_results = [json.loads(m.text) for m in Message.objects.filter(conversation=thread, role="tool")]
    searched, opened, written, ran, saved = tool_results[:5]
    assert searched["hits"][0]["id"] == TIMESHEET
    assert opened == {"opened": [{"path": "/work/inbox/Timesheet 2026.xlsx", "from": TIMESHEET}]}
    assert written["path"] == "/work/october.py"
    # The spec's totals, as the run printed them (pandas pads its columns; the spec's page shows them collapsed).
    assert ran["exitCode"] == 0, ran
    assert " ".join(ran["output"].split()) == (
        "Client Hours Juniper Dental 46.5 Ortiz Bakery 31.0 Harbor Florists 12.5 Total 90.0")
    assert ran["calls"] == {} and ran["usage"]["bytesWritten"] > 0
    # Nothing of Sam's changed in the workspace, so nothing was asked; the new Sheet needs no yes either.
    assert all("not_done_yet" not in r and "error" not in r for r in tool_results), tool_results
    sheet = LocalFile.objects.get(name="October 2026 hours by client", trashed=False)
    assert sheet.parent.name == "Bookkeeping 2026"
    assert saved["name"] == "October 2026 hours by client"
    change = Change.objects.get(tool="files.save")
    assert change.listing == "home_undo"
    assert Message.objects.filter(conversation=agent_services.chat_for(agent=bookkeeper),
                                  role="answer").last().text.endswith(ANSWER)
    # Undo from Home takes the new Sheet away again.
    change_undo(org=org, change_id=change.id, actor=Actor.for_user(org.owner))
    assert LocalFile.objects.get(pk=sheet.pk).trashed
