"""Prompt size: the new-client-enquiry use case run by the real runtime on a scripted model, against a baseline
agent given all 88 group tools' schemas up front; the prefix each step shares with the step before; and the
prompt of a thread with 10,000 messages.

Tokens are estimated as characters / 4 of the JSON the client would send (tools, then messages), the same
estimate for both sides of every ratio.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

SPEC_TOOLS = Path(__file__).resolve().parent.parent.parent / "shared" / "spec" / "tools.json"


def tokens(text: str) -> int:
    return len(text) // 4


def rendered(request: dict) -> str:
    """A request as the provider sees it, in order: tool definitions, then the messages."""
    return json.dumps(request["tools"]) + json.dumps(request["messages"])


def common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:  # binary search on equal prefixes: fast on long strings
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def spec_tool_schemas() -> list[dict]:
    """All 88 group tools as an agent without browse/find would hold them: one function each. A tool that is
    built has its real schema (the same find_tools sends); one not built yet, a schema made from the spec."""
    from tools import registry

    tools = []
    for tool in json.loads(SPEC_TOOLS.read_text()):
        built = registry.get_tool(tool["name"])
        if built is not None:
            tools.append({"name": tool["name"].replace(".", "_"), "description": built.description,
                          "parameters": built.input_schema()})
            continue
        properties = {}
        required = []
        for field in tool["inputs"]:
            name = field["name"]
            if "." in name or "[" in name:
                continue
            kind = field["type"]
            schema = {"type": "string"}
            if "whole number" in kind or kind == "number":
                schema = {"type": "integer"}
            elif kind.startswith("list"):
                schema = {"type": "array", "items": {"type": "string"}}
            elif "true or false" in kind:
                schema = {"type": "boolean"}
            elif kind in ("object",) or "named values" in kind:
                schema = {"type": "object"}
            elif kind.startswith("one of"):
                schema = {"type": "string", "enum": [v.strip(" `") for v in kind[7:].split(",")]}
            if field.get("what"):
                schema["description"] = field["what"]
            properties[name] = schema
            if field["required"]:
                required.append(name)
        tools.append({"name": tool["name"].replace(".", "_"), "description": tool["does"],
                      "parameters": {"type": "object", "properties": properties, "required": required}})
    return tools


def enquiry_script(org):
    """The thread's steps in spec/use-cases/new-client-enquiry.md, as a model would take them here."""
    from agents.runtime.model import call, say

    mail_id = "7c41e2d0:19a2c4e07d5b3f18"
    company = {"name": "Juniper Dental", "domains": ["juniperdental.test"], "labels": ["Lead"]}
    return [
        call("browse_tools", {"groups": ["mail", "contacts", "companies"]}),
        call("find_tools", {"names": ["mail.read", "contacts.find", "contacts.create", "companies.create",
                                      "companies.record"]}),
        call("use_tool", {"name": "mail.read", "input": {"id": mail_id}}),
        call("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}}),
        call("use_tool", {"name": "companies.create", "input": company}),
        lambda request: _create_contact(request),
        lambda request: _record(request),
        call("hand_off", {"agent": "Proposal writer",
                          "task": "Price a rebrand for Juniper Dental from the rate card: new logo, and signage for "
                                  "two clinics.",
                          "notes": "Second clinic opens in March. Dana Whitfield, practice manager, signs off.",
                          "links": [f"mail:{mail_id}"]}),
        say("Handed the pricing to Proposal writer; I'll ask Sam before the quote goes."),
    ]


def _company_id(request) -> str:
    for message in reversed(request["messages"]):
        if message["role"] == "tool" and '"domains"' in message["content"]:
            return json.loads(message["content"])["id"]
    raise AssertionError("no company was made")


def _create_contact(request):
    from agents.runtime.model import call

    return call("use_tool", {"name": "contacts.create", "input": {
        "name": "Dana Whitfield", "emails": ["dana@juniperdental.test"], "jobTitle": "Practice manager",
        "labels": ["Lead"], "companyIds": [_company_id(request)]}})


def _record(request):
    from agents.runtime.model import call

    return call("use_tool", {"name": "companies.record", "input": {
        "companyId": _company_id(request), "kind": "mail", "title": "Rebrand quote request",
        "summary": "Dana asked for a new logo and signage before the second clinic opens in March.",
        "at": "2026-11-10T10:12:00Z", "people": ["dana@juniperdental.test"], "thread": "7c41e2d0:19a2c4e07d5b3f18",
        "state": "waiting_you"}})


def run_enquiry():
    from agents import services as agent_services
    from agents.models import Agent, Message
    from agents.runtime.model import ScriptedModel, say, set_model
    from agents.runtime.turn import drain
    from bench.common import make_workspace

    _, org, desk = make_workspace("prompt-bench")
    Agent.objects.create(organization=org, name="Proposal writer", job="Prices and writes proposals and quotes")
    thread = agent_services.thread_start(agent=desk, title="New client enquiries")
    model = ScriptedModel(enquiry_script(org) + [say("Quoted: $8,400.")] + [say("ok")] * 5)
    set_model(model)
    try:
        agent_services.message_append(
            conversation=thread, role=Message.Role.ROUTINE,
            text="[Routine run · trigger 1 · New client enquiries] What started it: new mail matching its words\n"
                 "This time: Answer the same day. Quotes come from the rate card in Drive, and Sam sees every quote "
                 "before it goes out.\nDo the work now.",
            data={"name": "New client enquiries", "note": "Answer the same day."},
        )
        agent_services.work_open(org=org, agent=desk, conversation=thread, task="a run", requester=None)
        from agents.runtime.scheduler import wake

        wake(conversation=thread)
        drain(org_id=org.id)
    finally:
        set_model(None)
    steps = [r for r in model.requests if any(t["name"] == "use_tool" for t in r["tools"])
             and r["messages"][0]["content"].startswith("You are Client desk")]
    return steps[: len(enquiry_script(org))]


def baseline_requests(steps: list[dict]) -> list[dict]:
    """The same conversation, step by step, held by an agent given all 88 tools' schemas (and its agent tools)."""
    schemas = spec_tool_schemas()
    agent_tools = [t for t in steps[0]["tools"] if t["name"] not in ("browse_tools", "find_tools", "use_tool")]
    baseline = []
    for request in steps[2:]:  # the baseline needs no browse and find steps
        baseline.append({"tools": schemas + agent_tools, "messages": request["messages"]})
    return baseline


def ten_thousand_message_prompt() -> int:
    from agents import services as agent_services
    from agents.models import Message
    from agents.runtime import memory
    from agents.runtime.model import ModelResponse, ScriptedModel, set_model
    from agents.runtime.sql_storage import SqlTurnStorage
    from agents.runtime.turn import Turn
    from bench.common import make_workspace

    _, org, desk = make_workspace("memory-bench")
    thread = agent_services.thread_start(agent=desk, title="Long")
    text = ("Dana asked about the signage sizes for the second clinic; I checked the rate card and the "
            "earlier quote, and noted the March opening. ") * 2
    Message.objects.bulk_create(
        [Message(conversation=thread, seq=i, role="owner" if i % 2 == 0 else "agent", text=text)
         for i in range(10_000)], batch_size=2000,
    )
    summary = "Dana Whitfield (Juniper Dental) asked about signage; quoted from the 2026 rate card; March opening. " * 3

    class Summaries(ScriptedModel):
        def complete(self, **kwargs):
            return ModelResponse(text=summary)

    set_model(Summaries())
    try:
        memory.fold(thread)
        turn = Turn(SqlTurnStorage(thread), run=None)
        return tokens(json.dumps(turn.tool_specs()) + json.dumps(turn.prompt()))
    finally:
        set_model(None)


def run(report):
    steps = run_enquiry()
    ours = [tokens(rendered(r)) for r in steps]
    base = [tokens(rendered(r)) for r in baseline_requests(steps)]
    shares = []
    for before, after in zip(steps, steps[1:], strict=False):
        a, b = rendered(before), rendered(after)
        shares.append(common_prefix(a, b) / len(b))
    report("## Prompts (new-client-enquiry thread, scripted model)\n")
    report("| step | tokens sent | unchanged prefix of the step before |")
    report("| ---: | ---: | ---: |")
    for i, size in enumerate(ours):
        share = f"{shares[i - 1]:.1%}" if i else "—"
        report(f"| {i + 1} | {size:,} | {share} |")
    report(f"\nTotal: {sum(ours):,} tokens over {len(ours)} steps; the baseline with all 88 tools' schemas up front: "
           f"{sum(base):,} tokens over {len(base)} steps. Ratio {sum(ours) / sum(base):.2f} (target under 0.3).")
    report(f"Median unchanged prefix: {statistics.median(shares):.1%}; lowest {min(shares):.1%} (target over 90%).")
    report(f"A thread of 10,000 messages sends {ten_thousand_message_prompt():,} tokens (target under 8,000).\n")
