"""use_tool fuzzed: inputs drawn from each registered tool's own JSON schema (tests/tools/schema_inputs.py), as
declared and loose (past every limit, NUL in text, whole numbers and dates far out of range, wrong types), and no
call may end in an exception: every failure comes back in the error envelope, `{error, message}`.

Each tool gets TOOL_FUZZ_EXAMPLES examples of each kind (default 8), the same ones every run (derandomized), so
the suite stays quick and steady; raise it to look harder, e.g. TOOL_FUZZ_EXAMPLES=200. Ids are mostly real
records of the workspace, so the examples reach past not_found; the local apps (mail, files, calendar, books)
are connected, and nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import socket

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, settings
from pydantic import ValidationError

from core.actors import Actor
from core.context import ToolContext
from core.errors import ERROR_KINDS
from core.inputs import as_uuid
from docs import services as doc_services
from integrations.services import connection_create_local
from records.models import TimelineEntry
from tests.factories import CompanyFactory, ContactFactory, DocFactory, ProjectFactory
from tests.tools.schema_inputs import inputs
from tools import registry
from tools.pipeline import use_tool

EXAMPLES = int(os.environ.get("TOOL_FUZZ_EXAMPLES", "8"))
TOOLS = sorted(registry.TOOLS)
HELD_BACK = {"not_done_yet", "refused"}
@pytest.fixture(autouse=True)
def no_internet(monkeypatch):
    real_connect = socket.socket.connect

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"the fuzz tried to reach {address}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def records(org):
    """The workspace's records by the input names that take their ids."""
    owner = Actor.for_user(org.owner)
    contact = ContactFactory(organization=org, name="Dana Whitfield", emails=["dana@juniperdental.test"])
    company = CompanyFactory(organization=org, name="Juniper Dental")
    project = ProjectFactory(organization=org, name="Rebrand")
    doc = DocFactory(organization=org, project=project, title="Proposal", text="## Scope\nThe logo.")
    note = doc_services.doc_note_add(org=org, actor=owner, doc=doc, on="", note="Shorter?")
    entry = TimelineEntry.objects.create(organization=org, company=company, kind="mail", title="Kickoff",
                                         at=timezone.now(), by=owner.by())
    connection_create_local(org=org, account="sam@fernhill.test", groups=["mail", "files", "calendar", "books"])
    return {"contactId": contact.id, "companyId": company.id, "projectId": project.id, "docId": doc.id,
            "noteId": note.id, "entryId": entry.id, "contactIds": contact.id, "companyIds": company.id}


def with_real_ids(value, records: dict, key: str = ""):
    """Three generated ids in four become the workspace's real records (by the input's name); the rest stay."""
    if isinstance(value, dict):
        return {k: with_real_ids(v, records, k) for k, v in value.items()}
    if isinstance(value, list):
        return [with_real_ids(v, records, key) for v in value]
    if key in records and isinstance(value, str) and _is_uuid(value) and value[:1] not in "0123":
        return str(records[key])
    return value


def _is_uuid(value) -> bool:
    return as_uuid(value) is not None


def assert_enveloped(name: str, inp, result) -> None:
    if result is None:
        assert registry.TOOLS[name].nullable, (name, inp)
        return
    json.dumps(result)  # JSON all through, as the model reads it
    if "error" in result:
        assert result["error"] in ERROR_KINDS and isinstance(result["message"], str), (name, inp, result)
        assert set(result) <= {"error", "message", "card"}, (name, inp, result)


def _fuzz(ctx, records, name: str, loose: bool) -> None:
    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
        phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
    )
    @given(inp=inputs(registry.TOOLS[name].input_schema(), loose=loose))
    def run(inp):
        inp = with_real_ids(inp, records)
        assert_enveloped(name, inp, use_tool(ctx, name, inp))

    run()


@pytest.mark.parametrize("name", TOOLS)
def test_inputs_as_declared_come_back_as_results_or_errors(ctx, records, name):
    _fuzz(ctx, records, name, loose=False)


@pytest.mark.parametrize("name", TOOLS)
def test_inputs_past_every_limit_come_back_as_errors(ctx, records, name):
    _fuzz(ctx, records, name, loose=True)


@pytest.mark.parametrize("name", [n for n in TOOLS if registry.TOOLS[n].owners_yes != "No"])
def test_checked_tools_fuzzed_through_the_check(org, agent, records, name):
    checked = ToolContext(org=org, actor=Actor.for_agent(agent), conversation_id="thread-9",
                          conversation=lambda: [{"role": "owner", "text": "Tidy up Dana's details, please."}])
    _fuzz(checked, records, name, loose=True)


@pytest.mark.parametrize("name, inp", [
    ("no.such_tool", {}), (None, {}), (42, {}), ("contacts.list", []), ("contacts.list", "offset=1"),
    ("contacts.list", {"offset": 10**30}), ("contacts.list", {"offset": 1e30}), ("contacts.list", {"offset": -1}),
    ("contacts.follow_up", {"contactId": "x", "text": "Call", "at": "9999-12-31T23:59:59-14:00"}),
    ("contacts.create", {"name": "Dana\x00"}),
])
def test_odd_calls_come_back_as_errors(ctx, name, inp):
    result = use_tool(ctx, name, inp)
    assert result["error"] == "bad_input", result


def test_the_fuzz_covers_every_tool():
    assert len(TOOLS) == len(registry.TOOLS) > 50


@pytest.mark.parametrize("name", TOOLS)
def test_inputs_as_declared_pass_validation_now_and_then(name):
    """The drawn inputs must reach the tools' own work, or the fuzz tries nothing but validation (an input the
    schema can't say all of, such as an email address, passes less often)."""
    tool = registry.TOOLS[name]
    passed = []

    @settings(max_examples=20, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(inp=inputs(tool.input_schema()))
    def run(inp):
        try:
            tool.input.model_validate(inp)
        except ValidationError:
            passed.append(False)
        else:
            passed.append(True)

    run()
    assert passed.count(True) >= 1, name
