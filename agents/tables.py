"""The model call a research table's run makes, handed to research (below tools, so below agents) at
AgentsConfig.ready(): one call of the configured model, metered as a Usage of the agent that asked for the table
(purpose "table"), so it counts towards that agent's budget and shows on the agents chart like its other spend."""

from __future__ import annotations

from agents.models import Agent
from agents.runtime.model import ModelNotConfigured, ModelUnavailable, cost_of, get_model
from agents.services import usage_record
from core.errors import ToolError
from research.table_run import ModelAnswer, RunHalted


def table_model_call(*, org, agent_id, model_id: str, messages: list[dict], json_schema: dict,
                     max_tokens: int) -> ModelAnswer:
    agent = Agent.objects.filter(organization=org, id=agent_id).first() if agent_id else None
    if agent is not None and agent.paused:
        raise RunHalted(f"Stopped: {agent.name} is paused, past its monthly budget. Raise the budget, then research "
                        "the rest again.")
    try:
        model = get_model(org)
    except ModelNotConfigured as error:
        raise ToolError("unsupported", str(error)) from error
    try:
        response = model.complete(model_id=model_id, messages=messages, tools=[], json_schema=json_schema,
                                  max_tokens=max_tokens)
    except ModelUnavailable as error:
        raise ToolError("unavailable", "The model didn't answer after every try; try again later.") from error
    usage_record(org=org, agent=agent, conversation=None, purpose="table", model_id=model_id, usage=response.usage)
    return ModelAnswer(text=response.text, cost=cost_of(model_id, response.usage))
