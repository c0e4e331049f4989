"""The real model client on recorded OpenAI-API exchanges: what it sends, what it reads back, what it costs, and
the retry schedule. HTTP is mocked with respx; nothing here reaches a network or a live model.

The `openai` SDK speaks `httpx2`, which respx does not patch, so the client is given an `httpx.Client` (the SDK
takes one as `http_client`): the request still goes through the SDK's own building, sending and parsing.
"""

import copy
import json
from decimal import Decimal

import httpx
import pytest
import respx

from agents.runtime.model import (
    ModelNotConfigured,
    ModelUnavailable,
    ModelUsage,
    OpenAIModel,
    ToolCallRequest,
    cost_of,
    get_model,
)
from tests.spec import spec_page

BASE_URL = "http://model.test/v1"
REAL_NAME = "acme-large-2"

# What an OpenAI-compatible server answered, as recorded (ids and fingerprints kept as they came).
RECORDED_ANSWER = {
    "id": "chatcmpl-CfQ2x7Jd0aVYbqk3",
    "object": "chat.completion",
    "created": 1767312000,
    "model": "acme-large-2-2026-01-15",
    "system_fingerprint": "fp_4b3c2a1d",
    "service_tier": "default",
    "choices": [{
        "index": 0,
        "finish_reason": "stop",
        "logprobs": None,
        "message": {"role": "assistant", "content": "Dana prefers a call, mornings.", "refusal": None,
                    "annotations": []},
    }],
    "usage": {
        "prompt_tokens": 2150,
        "completion_tokens": 12,
        "total_tokens": 2162,
        "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    },
}

RECORDED_TOOL_CALLS = {
    "id": "chatcmpl-CfQ3a9Kx1bWZcrl4",
    "object": "chat.completion",
    "created": 1767312005,
    "model": "acme-large-2-2026-01-15",
    "choices": [{
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {
            "role": "assistant",
            "content": "Starting on Juniper.",
            "tool_calls": [
                {"id": "call_9fQm2", "type": "function",
                 "function": {"name": "start_thread",
                              "arguments": "{\"title\": \"Juniper Dental\", \"task\": \"Quote the rebrand\"}"}},
                {"id": "call_9fQm3", "type": "function",
                 "function": {"name": "remember", "arguments": "{\"note\":\"Dana prefers calls\"}"}},
            ],
        },
    }],
    "usage": {"prompt_tokens": 3000, "completion_tokens": 48, "total_tokens": 3048,
              "prompt_tokens_details": {"cached_tokens": 0}},
}

REMEMBER = {
    "name": "remember",
    "description": "Keep a note for next time.",
    "parameters": {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"],
                   "additionalProperties": False},
}
START_THREAD = {
    "name": "start_thread",
    "description": "Start a thread on a piece of work.",
    "parameters": {"type": "object", "properties": {"title": {"type": "string"}, "task": {"type": "string"}},
                   "required": ["title", "task"], "additionalProperties": False},
}
MESSAGES = [
    {"role": "system", "content": "You are Client desk, one of Sam Rivera's agents."},
    {"role": "user", "content": "[#0] Sam: How does Dana like to be reached?"},
]


def answer_with(tool_calls=None, content=None, usage=None) -> dict:
    body = copy.deepcopy(RECORDED_ANSWER)
    message = body["choices"][0]["message"]
    message["content"] = content
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
        body["choices"][0]["finish_reason"] = "tool_calls"
    if usage is not None:
        body["usage"] = usage
    return body


def one_call(arguments: str) -> list[dict]:
    return [{"id": "call_1", "type": "function", "function": {"name": "remember", "arguments": arguments}}]


@pytest.fixture
def models(settings):
    """ROADSTAR_MODELS as a deployment sets it: Terra maps to a real model name; reasoning off unless a test turns
    it on."""
    configured = copy.deepcopy(settings.ROADSTAR_MODELS)
    for config in configured.values():
        config["reasoning"] = False
    configured["gpt-6.1-terra"]["name"] = REAL_NAME
    settings.ROADSTAR_MODELS = configured
    return configured


@pytest.fixture
def server():
    """The OpenAI-compatible endpoint, mocked: every request not routed here fails the test."""
    with respx.mock(base_url=BASE_URL, assert_all_called=False, assert_all_mocked=True) as router:
        yield router


@pytest.fixture
def chat_completions(server):
    return server.post("/chat/completions")


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def client(models, sleeps):
    with httpx.Client() as http:
        yield OpenAIModel(api_key="sk-test-123", base_url=BASE_URL, sleep=sleeps.append, http_client=http)


def sent(route, index: int = -1) -> dict:
    return json.loads(route.calls[index].request.content)


def complete(client, **overrides):
    arguments = {"model_id": "gpt-6.1-terra", "messages": MESSAGES, "tools": [REMEMBER]}
    arguments.update(overrides)
    return client.complete(**arguments)


# --- what is sent --------------------------------------------------------------------------------------------


def test_the_request_goes_to_the_configured_endpoints_chat_completions(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client)
    assert chat_completions.call_count == 1
    assert str(chat_completions.calls[0].request.url) == f"{BASE_URL}/chat/completions"


def test_the_api_key_is_sent_as_a_bearer_token(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client)
    assert chat_completions.calls[0].request.headers["authorization"] == "Bearer sk-test-123"


def test_a_server_without_a_key_is_sent_a_placeholder_so_the_sdk_does_not_refuse(models, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    with httpx.Client() as http:
        OpenAIModel(api_key=None, base_url=BASE_URL, sleep=lambda s: None, http_client=http).complete(
            model_id="gpt-6.1-terra", messages=MESSAGES, tools=[])
    assert chat_completions.calls[0].request.headers["authorization"] == "Bearer not-needed"


def test_the_roadstar_model_id_is_sent_as_the_real_model_name_it_maps_to(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, model_id="gpt-6.1-terra")
    assert sent(chat_completions)["model"] == REAL_NAME


def test_each_model_id_maps_on_its_own(client, models, chat_completions):
    models["gpt-6-luna"]["name"] = "acme-small-1"
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, model_id="gpt-6-luna")
    complete(client, model_id="gpt-6.1-terra")
    assert [sent(chat_completions, i)["model"] for i in range(2)] == ["acme-small-1", REAL_NAME]


def test_an_unknown_model_id_is_refused_before_anything_is_sent(client, chat_completions):
    with pytest.raises(ValueError, match="gpt-7"):
        complete(client, model_id="gpt-7")
    assert chat_completions.call_count == 0


def test_the_messages_are_sent_as_given(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    history = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "remember", "arguments": "{\"note\": \"x\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"notes\": [\"x\"]}"},
    ]
    complete(client, messages=history)
    assert sent(chat_completions)["messages"] == history


def test_tools_are_sent_as_functions_with_their_json_schemas(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, tools=[REMEMBER, START_THREAD])
    assert sent(chat_completions)["tools"] == [
        {"type": "function", "function": {"name": "remember", "description": "Keep a note for next time.",
                                          "parameters": REMEMBER["parameters"]}},
        {"type": "function", "function": {"name": "start_thread",
                                          "description": "Start a thread on a piece of work.",
                                          "parameters": START_THREAD["parameters"]}},
    ]


def test_no_tools_sends_no_tools_key(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, tools=[], tool_choice="none")
    body = sent(chat_completions)
    assert "tools" not in body and "tool_choice" not in body


def test_tool_choice_is_sent_when_given(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, tool_choice="none")
    assert sent(chat_completions)["tool_choice"] == "none"


def test_tool_choice_is_left_out_when_not_given(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client)
    assert "tool_choice" not in sent(chat_completions)


def test_the_thinking_level_is_sent_as_reasoning_effort_to_a_reasoning_model(client, models, chat_completions):
    models["gpt-6.1-terra"]["reasoning"] = True
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, thinking="medium")
    assert sent(chat_completions)["reasoning_effort"] == "medium"


def test_no_reasoning_effort_is_sent_to_a_model_without_reasoning(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, thinking="high")
    assert "reasoning_effort" not in sent(chat_completions)


def test_no_reasoning_effort_is_sent_without_a_thinking_level(client, models, chat_completions):
    models["gpt-6.1-terra"]["reasoning"] = True
    chat_completions.respond(200, json=RECORDED_ANSWER)
    complete(client, thinking=None)
    assert "reasoning_effort" not in sent(chat_completions)


# --- what is read back ---------------------------------------------------------------------------------------


def test_a_text_answer_is_read_with_the_model_that_served_it(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    response = complete(client)
    assert (response.text, response.tool_calls, response.model) == (
        "Dana prefers a call, mornings.", [], "acme-large-2-2026-01-15")


def test_tool_calls_are_read_with_ids_names_parsed_arguments_and_the_raw_string(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_TOOL_CALLS)
    response = complete(client, tools=[START_THREAD, REMEMBER])
    assert response.text == "Starting on Juniper."
    assert response.tool_calls == [
        ToolCallRequest(id="call_9fQm2", name="start_thread",
                        arguments={"title": "Juniper Dental", "task": "Quote the rebrand"},
                        raw_arguments="{\"title\": \"Juniper Dental\", \"task\": \"Quote the rebrand\"}"),
        ToolCallRequest(id="call_9fQm3", name="remember", arguments={"note": "Dana prefers calls"},
                        raw_arguments="{\"note\":\"Dana prefers calls\"}"),
    ]


def test_a_tool_call_with_no_content_reads_as_empty_text(client, chat_completions):
    chat_completions.respond(200, json=answer_with(tool_calls=one_call("{\"note\": \"x\"}"), content=None))
    assert complete(client).text == ""


def test_malformed_arguments_are_kept_under_unparsed_rather_than_crashing(client, chat_completions):
    broken = "{\"note\": \"Dana prefers calls"
    chat_completions.respond(200, json=answer_with(tool_calls=one_call(broken)))
    [call] = complete(client).tool_calls
    assert (call.name, call.arguments["_unparsed"], call.raw_arguments) == ("remember", broken, broken)
    assert call.arguments["_why"].startswith("Your arguments to remember were cut off before their end")


@pytest.mark.parametrize("raw", ["[\"Dana\"]", "null", "\"Dana prefers calls\"", "42"])
def test_arguments_that_are_json_but_not_an_object_are_kept_under_unparsed(client, chat_completions, raw):
    chat_completions.respond(200, json=answer_with(tool_calls=one_call(raw)))
    [call] = complete(client).tool_calls
    assert call.arguments["_unparsed"] == raw
    assert "must be one JSON object of the tool's inputs" in call.arguments["_why"]


def test_empty_arguments_read_as_no_arguments(client, chat_completions):
    chat_completions.respond(200, json=answer_with(tool_calls=one_call("")))
    [call] = complete(client).tool_calls
    assert (call.arguments, call.raw_arguments) == ({}, "{}")


# --- usage and cost ------------------------------------------------------------------------------------------


def test_usage_records_prompt_cached_and_completion_tokens(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    assert complete(client).usage == ModelUsage(input_tokens=2150, cached_input_tokens=1920, output_tokens=12)


def test_usage_without_prompt_details_counts_no_cached_tokens(client, chat_completions):
    chat_completions.respond(200, json=answer_with(content="ok", usage={
        "prompt_tokens": 800, "completion_tokens": 20, "total_tokens": 820}))
    assert complete(client).usage == ModelUsage(input_tokens=800, cached_input_tokens=0, output_tokens=20)


def test_usage_with_null_cached_tokens_counts_none(client, chat_completions):
    chat_completions.respond(200, json=answer_with(content="ok", usage={
        "prompt_tokens": 800, "completion_tokens": 20, "total_tokens": 820,
        "prompt_tokens_details": {"cached_tokens": None}}))
    assert complete(client).usage.cached_input_tokens == 0


def test_a_server_that_reports_no_usage_counts_zero(client, chat_completions):
    body = answer_with(content="ok")
    del body["usage"]
    chat_completions.respond(200, json=body)
    assert complete(client).usage == ModelUsage()


def spec_prices() -> dict[str, tuple[Decimal, Decimal, Decimal]]:
    """The prices table of spec/reference/models.md: id -> (input, cached input, output) per million tokens."""
    prices = {}
    for line in spec_page("reference/models.md").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[1].startswith("`gpt-"):
            prices[cells[1].strip("`")] = tuple(Decimal(c.lstrip("$")) for c in cells[3:6])
    return prices


def test_settings_carry_the_specs_price_for_every_model(settings):
    table = spec_prices()
    assert set(table) == set(settings.ROADSTAR_MODELS) == {"gpt-6-luna", "gpt-6.1-terra", "gpt-6.1-sol",
                                                           "gpt-6-astra"}
    for model_id, (input_price, cached_price, output_price) in table.items():
        prices = settings.ROADSTAR_MODELS[model_id]["prices"]
        assert (Decimal(str(prices["input"])), Decimal(str(prices["cached_input"])),
                Decimal(str(prices["output"]))) == (input_price, cached_price, output_price), model_id


MILLION = 1_000_000


@pytest.mark.parametrize(("model_id", "input_cost", "cached_cost", "output_cost"), [
    ("gpt-6.1-terra", "1", "0.05", "5"),
    ("gpt-6-luna", "0.1", "0.01", "0.5"),
    ("gpt-6.1-sol", "2", "0.1", "10"),
    ("gpt-6-astra", "10", "1", "50"),
])
def test_a_million_tokens_cost_the_specs_price(model_id, input_cost, cached_cost, output_cost):
    assert cost_of(model_id, ModelUsage(input_tokens=MILLION)) == Decimal(input_cost)
    assert cost_of(model_id, ModelUsage(input_tokens=MILLION, cached_input_tokens=MILLION)) == Decimal(cached_cost)
    assert cost_of(model_id, ModelUsage(output_tokens=MILLION)) == Decimal(output_cost)


def test_luna_costs_a_tenth_of_terra_for_uncached_input_and_output():
    # (Cached input is not a tenth: $0.01 against $0.05, as the spec's table says.)
    usage = ModelUsage(input_tokens=123_456, output_tokens=7_890)
    assert cost_of("gpt-6-luna", usage) * 10 == cost_of("gpt-6.1-terra", usage)


def test_cached_tokens_are_charged_at_the_cached_price_and_not_again_as_input():
    # 600k uncached at $1/M, 400k cached at $0.05/M, 10k out at $5/M
    usage = ModelUsage(input_tokens=1_000_000, cached_input_tokens=400_000, output_tokens=10_000)
    assert cost_of("gpt-6.1-terra", usage) == Decimal("0.6") + Decimal("0.02") + Decimal("0.05")


def test_the_recorded_answers_cost(client, chat_completions):
    chat_completions.respond(200, json=RECORDED_ANSWER)
    usage = complete(client).usage
    # 230 uncached at $1/M + 1,920 cached at $0.05/M + 12 out at $5/M
    assert cost_of("gpt-6.1-terra", usage) == Decimal("0.000230") + Decimal("0.000096") + Decimal("0.000060")


def test_a_price_change_in_settings_changes_the_cost(models):
    models["gpt-6.1-terra"]["prices"] = {"input": 3, "cached_input": 0.3, "output": 15}
    assert cost_of("gpt-6.1-terra", ModelUsage(input_tokens=MILLION, output_tokens=MILLION)) == Decimal(18)


# --- the retry schedule --------------------------------------------------------------------------------------


def failures(status: int, count: int) -> list[httpx.Response]:
    return [httpx.Response(status, json={"error": {"message": "try later", "type": "server_error"}})] * count


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_failed_call_is_tried_again_after_2_then_4_seconds(client, chat_completions, sleeps, status):
    chat_completions.side_effect = [*failures(status, 2), httpx.Response(200, json=RECORDED_ANSWER)]
    response = complete(client)
    assert response.text == "Dana prefers a call, mornings."
    assert (chat_completions.call_count, sleeps) == (3, [2, 4])


@pytest.mark.parametrize("status", [429, 500])
def test_the_sixth_try_after_five_failures_returns_its_answer(client, chat_completions, sleeps, status):
    chat_completions.side_effect = [*failures(status, 5), httpx.Response(200, json=RECORDED_ANSWER)]
    assert complete(client).text == "Dana prefers a call, mornings."
    assert (chat_completions.call_count, sleeps) == (6, [2, 4, 8, 16, 32])


@pytest.mark.parametrize("status", [429, 500])
def test_after_the_sixth_failure_the_model_is_unavailable(client, chat_completions, sleeps, status):
    chat_completions.side_effect = failures(status, 7)
    with pytest.raises(ModelUnavailable, match=REAL_NAME):
        complete(client)
    assert (chat_completions.call_count, sleeps) == (6, [2, 4, 8, 16, 32])


def test_every_try_sends_the_same_request(client, chat_completions):
    chat_completions.side_effect = [*failures(500, 2), httpx.Response(200, json=RECORDED_ANSWER)]
    complete(client, tool_choice="none")
    bodies = [call.request.content for call in chat_completions.calls]
    assert bodies[0] == bodies[1] == bodies[2]


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_a_refused_call_is_not_tried_again(client, chat_completions, sleeps, status):
    chat_completions.side_effect = failures(status, 2)
    with pytest.raises(ModelUnavailable, match="refused"):
        complete(client)
    assert (chat_completions.call_count, sleeps) == (1, [])


def test_a_connection_error_is_tried_again(client, chat_completions, sleeps):
    chat_completions.side_effect = [httpx.ConnectError("connection refused"), httpx.ConnectError("again"),
                                    httpx.Response(200, json=RECORDED_ANSWER)]
    assert complete(client).text == "Dana prefers a call, mornings."
    assert (chat_completions.call_count, sleeps) == (3, [2, 4])


def test_a_timeout_is_tried_again(client, chat_completions, sleeps):
    chat_completions.side_effect = [httpx.ReadTimeout("slow"), httpx.Response(200, json=RECORDED_ANSWER)]
    assert complete(client).text == "Dana prefers a call, mornings."
    assert sleeps == [2]


def test_a_server_that_never_connects_is_unavailable_after_six_tries(client, chat_completions, sleeps):
    chat_completions.side_effect = httpx.ConnectError("connection refused")
    with pytest.raises(ModelUnavailable):
        complete(client)
    assert (chat_completions.call_count, sleeps) == (6, [2, 4, 8, 16, 32])


# --- the configured client -----------------------------------------------------------------------------------


def test_the_configured_client_leaves_retries_to_the_schedule(settings):
    settings.MODEL_CONFIGURED = True
    settings.OPENAI_API_KEY = "sk-live-xyz"
    settings.OPENAI_BASE_URL = "http://vllm.local:8000/v1"
    model = get_model()
    assert isinstance(model, OpenAIModel)
    assert model.client.max_retries == 0
    assert str(model.client.base_url).rstrip("/") == "http://vllm.local:8000/v1"


def test_with_no_model_configured_get_model_says_how_to_connect_one(settings):
    settings.MODEL_CONFIGURED = False
    settings.OPENAI_API_KEY = settings.OPENAI_BASE_URL = None
    with pytest.raises(ModelNotConfigured, match="Connect one on Settings"):
        get_model()


# --- answers that aren't a chat completion ----------------------------------------------------------------------


GARBAGE = [
    httpx.Response(200, text="<html><body>502 Bad Gateway</body></html>", headers={"content-type": "text/html"}),
    httpx.Response(
        200, content=b'{"id": "chatcmpl-1", "choices": [{"mess', headers={"content-type": "application/json"}
    ),
    httpx.Response(200, json={"error": "upstream timed out"}),
    httpx.Response(200, json={**RECORDED_ANSWER, "choices": []}),
    httpx.Response(200, content=b"", headers={"content-type": "application/json"}),
]


@pytest.mark.parametrize("garbage", GARBAGE, ids=["html", "cut-off-json", "other-json", "no-choices", "empty"])
def test_a_200_that_is_not_a_chat_completion_is_tried_again_like_a_5xx(client, chat_completions, sleeps, garbage):
    chat_completions.side_effect = [garbage, garbage, httpx.Response(200, json=RECORDED_ANSWER)]
    assert complete(client).text == "Dana prefers a call, mornings."
    assert (chat_completions.call_count, sleeps) == (3, [2, 4])


def test_garbage_on_every_try_makes_the_model_unavailable_after_the_same_5_tries_again(
    client, chat_completions, sleeps
):
    chat_completions.side_effect = [GARBAGE[0]] * 7
    with pytest.raises(ModelUnavailable, match="first call and 5 tries again failed"):
        complete(client)
    assert (chat_completions.call_count, sleeps) == (6, [2, 4, 8, 16, 32])


def test_the_retry_schedule_is_the_specs_tries_of_a_failed_model_call():
    # spec/reference/limits.md: "Tries of a failed model call | 5 | About 2, 4, 8, 16 and 32 seconds apart." The
    # five tries follow the call that failed, each after its wait.
    from agents.runtime.model import RETRY_DELAYS

    row = next(line for line in spec_page("reference/limits.md").splitlines() if "Tries of a failed model call" in line)
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert int(cells[1]) == len(RETRY_DELAYS) == 5
    assert (
        cells[2] == "About " + ", ".join(str(d) for d in RETRY_DELAYS[:-1]) + f" and {RETRY_DELAYS[-1]} seconds apart."
    )
