"""The anchor of the step-cost bench: the OpenAI Agents SDK's runner, in memory, with a fake model that calls one
trivial tool N times and then answers. Run by bench/step_cost.py with the SDK's own venv (its package is named
`agents`, as Roadstar's app is, so it can't share Roadstar's). Prints one JSON line: {"n": ms_per_step, ...}.

    python bench/sdk_anchor.py 20 200
"""

from __future__ import annotations

import json
import sys
import time

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from agents import Agent, Runner, function_tool, set_tracing_disabled

CONTACTS = {"dana@juniperdental.test": {"name": "Dana Whitfield", "company": "Juniper Dental"}}


@function_tool
def find_contact(email: str) -> dict | None:
    """Find a contact by email."""
    return CONTACTS.get(email)


class ScriptedModel(Model):
    """Calls find_contact `n` times, one call a step, then answers: what Roadstar's bench scripts too."""

    def __init__(self, n: int):
        self.n = n
        self.steps = 0

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema, handoffs,
                           tracing, *, previous_response_id=None, conversation_id=None, prompt=None):
        self.steps += 1
        if self.steps <= self.n:
            output = [ResponseFunctionToolCall(id=f"fc_{self.steps}", call_id=f"call_{self.steps}",
                                               type="function_call", name="find_contact",
                                               arguments='{"email": "dana@juniperdental.test"}')]
        else:
            output = [ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                            content=[ResponseOutputText(type="output_text", text="Found.",
                                                                        annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the bench runs without streaming")


def ms_per_step(n: int) -> float:
    agent = Agent(name="Client desk", instructions="Find contacts.", tools=[find_contact], model=ScriptedModel(n))
    start = time.perf_counter()
    result = Runner.run_sync(agent, "Find Dana", max_turns=n + 5)
    took = time.perf_counter() - start
    assert result.final_output == "Found.", result.final_output
    return took * 1000 / (n + 1)


def main() -> None:
    set_tracing_disabled(True)
    ms_per_step(3)  # warm: imports and first-call caches, as Roadstar's side is warmed too
    print(json.dumps({str(n): ms_per_step(int(n)) for n in sys.argv[1:]}))


if __name__ == "__main__":
    main()
