"""Spend and budgets: every model call's tokens and cost recorded; an agent past its monthly budget paused with
one Home card; its work waits until the owner raises the budget; only this month (the owner's month) counts."""

import copy
import datetime
from decimal import Decimal

import httpx
import pytest
import respx
from freezegun import freeze_time

from agents import services
from agents.models import Agent, Conversation, Message, Run, Usage, Work
from agents.runtime.model import ModelResponse, ModelUsage, OpenAIModel, call, cost_of, say, set_model
from agents.runtime.scheduler import drain
from core.errors import ToolError
from core.models import Card
from core.owner_zone import zone_named

TERRA = "gpt-6.1-terra"
NEW_YORK = zone_named("America/New_York")


@pytest.fixture
def desk(staff):
    desk = staff["Client desk"]
    desk.monthly_budget = Decimal("1.00")
    desk.save(update_fields=["monthly_budget"])
    return desk


def dollars(amount: str) -> ModelUsage:
    """Terra usage costing `amount` dollars: uncached input at $1 a million tokens."""
    return ModelUsage(input_tokens=int(Decimal(amount) * 1_000_000))


def costing(response: ModelResponse, amount: str) -> ModelResponse:
    response.usage = dollars(amount)
    return response


def spend(org, agent, amount: str) -> Usage:
    return services.usage_record(org=org, agent=agent, conversation=None, purpose="turn", model_id=TERRA,
                                 usage=dollars(amount))


def budget_cards(org):
    return list(Card.objects.filter(organization=org, kind="budget", resolved_at__isnull=True))


def paused(agent) -> bool:
    return Agent.objects.get(id=agent.id).paused


# --- recording -----------------------------------------------------------------------------------------------


def test_a_call_is_recorded_with_its_tokens_and_cost(org, desk):
    usage = ModelUsage(input_tokens=12_000, cached_input_tokens=8_000, output_tokens=150)
    row = services.usage_record(org=org, agent=desk, conversation=None, purpose="turn", model_id=TERRA, usage=usage)
    row.refresh_from_db()
    assert (row.model, row.input_tokens, row.cached_input_tokens, row.output_tokens, row.cost) == (
        TERRA, 12_000, 8_000, 150, Decimal("0.005150"))


def test_a_turns_usage_rows_add_up_to_what_the_owner_is_shown(org, desk, model):
    steps = [
        ModelUsage(input_tokens=12_000, cached_input_tokens=8_000, output_tokens=150),
        ModelUsage(input_tokens=12_500, cached_input_tokens=12_000, output_tokens=40),
    ]
    first = call("remember", {"note": "Dana prefers calls"})
    first.usage = copy.copy(steps[0])
    last = say("Noted.")
    last.usage = copy.copy(steps[1])
    model.add(first, last)
    services.owner_message_send(org=org, agent=desk, text="Remember that Dana prefers calls")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    rows = list(Usage.objects.filter(conversation=chat).order_by("id"))
    assert [(r.input_tokens, r.cached_input_tokens, r.output_tokens) for r in rows] == [
        (12_000, 8_000, 150), (12_500, 12_000, 40)]
    expected = sum(cost_of(TERRA, u) for u in steps)
    assert expected == Decimal("0.00645")  # 0.00515 + 0.0013, by the spec's prices
    assert sum(r.cost for r in rows) == expected
    assert services.agent_spend_this_month(agent=desk) == expected


def test_the_tokens_the_server_reports_are_the_tokens_recorded(org, desk, settings):
    models = copy.deepcopy(settings.ROADSTAR_MODELS)
    models[TERRA]["name"] = "acme-large-2"
    settings.ROADSTAR_MODELS = models
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1767312000, "model": "acme-large-2",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hello, Sam."}}],
        "usage": {"prompt_tokens": 4321, "completion_tokens": 17, "total_tokens": 4338,
                  "prompt_tokens_details": {"cached_tokens": 4096}},
    }
    with respx.mock(base_url="http://model.test/v1", assert_all_mocked=True) as server, httpx.Client() as http:
        server.post("/chat/completions").respond(200, json=body)
        set_model(OpenAIModel(api_key="k", base_url="http://model.test/v1", sleep=lambda s: None, http_client=http))
        try:
            services.owner_message_send(org=org, agent=desk, text="Hi")
            drain(org_id=org.id)
        finally:
            set_model(None)
    [row] = Usage.objects.filter(agent=desk)
    assert (row.input_tokens, row.cached_input_tokens, row.output_tokens) == (4321, 4096, 17)
    # 225 uncached at $1/M + 4,096 cached at $0.05/M + 17 out at $5/M = $0.0005148, kept exactly (8 places)
    assert cost_of(TERRA, ModelUsage(4321, 4096, 17)) == Decimal("0.0005148")
    assert row.cost == Decimal("0.0005148")


# --- passing the budget --------------------------------------------------------------------------------------


def test_spend_up_to_the_budget_does_not_pause(org, desk):
    spend(org, desk, "1.00")
    assert not paused(desk)
    assert budget_cards(org) == []


def test_spend_past_the_budget_pauses_the_agent(org, desk):
    spend(org, desk, "0.60")
    spend(org, desk, "0.41")
    assert paused(desk)


def test_passing_the_budget_opens_a_card_asking_to_raise_it(org, desk):
    spend(org, desk, "1.25")
    [card] = budget_cards(org)
    assert card.title == "Client desk is paused: it spent $1.25 of its $1.00 this month"
    assert (card.action_label, card.data) == ("Raise the budget", {"agent_id": str(desk.id)})


def test_further_calls_past_the_budget_do_not_open_a_second_card(org, desk):
    stale = Agent.objects.get(id=desk.id)  # loaded by another worker before the pause
    spend(org, desk, "1.25")
    spend(org, desk, "0.10")
    spend(org, stale, "0.10")
    assert len(budget_cards(org)) == 1


def test_an_agent_without_a_budget_is_never_paused(org, staff):
    writer = staff["Proposal writer"]
    spend(org, writer, "500")
    assert not paused(writer)
    assert budget_cards(org) == []


def test_each_agent_has_its_own_budget(org, desk, staff):
    writer = staff["Proposal writer"]
    writer.monthly_budget = Decimal("1.00")
    writer.save(update_fields=["monthly_budget"])
    spend(org, desk, "0.80")
    spend(org, writer, "0.80")
    assert not paused(desk) and not paused(writer)


# --- paused work ---------------------------------------------------------------------------------------------


def test_a_paused_agents_queued_work_does_not_run(org, desk, model):
    spend(org, desk, "1.25")
    services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
    assert drain(org_id=org.id) == 0
    assert model.requests == []
    chat = services.chat_for(agent=desk)
    assert chat.state == Conversation.State.QUEUED
    assert Work.objects.get(conversation=chat).state == Work.State.OPEN


def test_another_agents_work_still_runs_while_one_is_paused(org, desk, staff, model):
    spend(org, desk, "1.25")
    model.add(say("Quoted."))
    services.owner_message_send(org=org, agent=desk, text="How does Dana like to be reached?")
    services.owner_message_send(org=org, agent=staff["Proposal writer"], text="Quote Juniper")
    assert drain(org_id=org.id) == 1
    assert Message.objects.filter(conversation__agent=staff["Proposal writer"]).last().text == "Quoted."


def test_a_turn_that_passes_the_budget_stops_before_its_next_step(org, desk, model):
    model.add(costing(call("remember", {"note": "Dana prefers calls"}), "1.50"), say("Noted."))
    services.owner_message_send(org=org, agent=desk, text="Remember that Dana prefers calls")
    drain(org_id=org.id)
    chat = services.chat_for(agent=desk)
    assert len(model.requests) == 1
    assert paused(desk)
    assert chat.state == Conversation.State.QUEUED
    assert Work.objects.get(conversation=chat).state == Work.State.OPEN
    assert Run.objects.get(conversation=chat).outcome == Run.Outcome.PAUSED


def test_raising_the_budget_unpauses_the_agent_and_resolves_the_card(org, desk):
    spend(org, desk, "1.25")
    services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("5.00"))
    assert not paused(desk)
    assert budget_cards(org) == []
    assert Agent.objects.get(id=desk.id).monthly_budget == Decimal("5.00")


def test_after_the_raise_the_waiting_work_runs(org, desk, model):
    model.add(costing(call("remember", {"note": "Dana prefers calls"}), "1.50"), say("Noted."))
    services.owner_message_send(org=org, agent=desk, text="Remember that Dana prefers calls")
    drain(org_id=org.id)
    services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("5.00"))
    assert drain(org_id=org.id) == 1
    chat = services.chat_for(agent=desk)
    work = Work.objects.get(conversation=chat)
    assert (work.state, work.answer) == (Work.State.ANSWERED, "Noted.")
    assert Agent.objects.get(id=desk.id).notes == ["Dana prefers calls"]


def test_raising_it_to_less_than_was_spent_keeps_the_agent_paused_and_the_card_open(org, desk, model):
    spend(org, desk, "1.25")
    services.owner_message_send(org=org, agent=desk, text="Hello")
    services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("1.10"))
    assert paused(desk)
    assert len(budget_cards(org)) == 1
    assert drain(org_id=org.id) == 0


def test_passing_the_raised_budget_asks_again(org, desk):
    spend(org, desk, "1.25")
    services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("2.00"))
    spend(org, desk, "1.00")
    assert paused(desk)
    [card] = budget_cards(org)
    assert card.title == "Client desk is paused: it spent $2.25 of its $2.00 this month"


def test_raising_another_workspaces_agents_budget_is_refused(org, other_org, desk):
    spend(org, desk, "1.25")
    with pytest.raises(ToolError) as refused:
        services.agent_raise_budget(org=other_org, agent=desk, monthly_budget=Decimal("100"))
    assert refused.value.kind == "not_found"
    assert paused(desk)
    assert Agent.objects.get(id=desk.id).monthly_budget == Decimal("1.00")


# --- this month ----------------------------------------------------------------------------------------------


def test_spend_counts_only_this_month(org, desk):
    with freeze_time(datetime.datetime(2026, 2, 20, 15, tzinfo=NEW_YORK)):
        spend(org, desk, "0.90")
    with freeze_time(datetime.datetime(2026, 3, 10, 15, tzinfo=NEW_YORK)):
        spend(org, desk, "0.30")
        assert services.agent_spend_this_month(agent=desk) == Decimal("0.30")
        assert not paused(desk)


def test_last_months_spend_does_not_keep_a_raise_from_unpausing(org, desk):
    with freeze_time(datetime.datetime(2026, 2, 20, 15, tzinfo=NEW_YORK)):
        spend(org, desk, "1.25")
    with freeze_time(datetime.datetime(2026, 3, 2, 9, tzinfo=NEW_YORK)):
        services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("1.00"))
        assert not paused(desk)


def test_the_month_is_the_owners_not_utcs_at_its_end(org, desk):
    org.time_zone = "America/New_York"
    org.save(update_fields=["time_zone"])
    with freeze_time(datetime.datetime(2026, 1, 15, 12, tzinfo=NEW_YORK)):
        spend(org, desk, "0.70")
    # 10pm on 31 January in New York is already 1 February in UTC: still Sam's January.
    with freeze_time(datetime.datetime(2026, 1, 31, 22, tzinfo=NEW_YORK)):
        spend(org, desk, "0.40")
        assert services.agent_spend_this_month(agent=desk) == Decimal("1.10")
        assert paused(desk)


def test_the_month_is_the_owners_not_utcs_at_its_start(org, desk):
    org.time_zone = "America/New_York"
    org.save(update_fields=["time_zone"])
    # 9pm on 31 January in New York is 1 February in UTC, but Sam's January.
    with freeze_time(datetime.datetime(2026, 1, 31, 21, tzinfo=NEW_YORK)):
        spend(org, desk, "0.90")
    with freeze_time(datetime.datetime(2026, 2, 1, 0, 30, tzinfo=NEW_YORK)):
        spend(org, desk, "0.20")
        assert services.agent_spend_this_month(agent=desk) == Decimal("0.20")
        assert not paused(desk)


def test_raising_the_budget_hands_the_waiting_work_to_a_worker(org, desk, model, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    spend(org, desk, "1.25")
    services.owner_message_send(org=org, agent=desk, text="Hello")
    handed = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *args, **kwargs: handed.append((func, args)))
    with django_capture_on_commit_callbacks(execute=True):
        services.agent_raise_budget(org=org, agent=desk, monthly_budget=Decimal("5.00"))
    chat = services.chat_for(agent=desk)
    lease = str(Conversation.objects.get(id=chat.id).lease_token)  # the claim's token, which the task carries
    assert handed == [("agents.tasks.run_turn", (str(chat.id), lease))]
    chat.refresh_from_db()
    assert chat.state == Conversation.State.RUNNING
