"""The model layer: one small client over the OpenAI API (any compatible endpoint), and a scripted one for tests.

The four Roadstar model ids map in settings (`ROADSTAR_MODELS`) to a real model name and the prices of
spec/reference/models.md. A failed call (no connection, a timeout, 429, 5xx, or a 200 that isn't a chat
completion) is tried again 5 times, about 2, 4, 8, 16 and 32 seconds apart; what still fails raises
`ModelUnavailable`, and the turn shows on Home with Try again.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings

from core.lenient_json import NotAnObject, read_object
from core.model_endpoint import endpoint_for
from core.network import network_call

logger = logging.getLogger(__name__)

RETRY_DELAYS = (2, 4, 8, 16, 32)
# Where a tool call's arguments that aren't a JSON object are kept, as written, so the call answers that they
# weren't valid JSON (agent_tools.run_agent_tool) rather than running on nothing; and, beside them, what was wrong
# and how to send them (core.lenient_json), the line the model reads.
UNPARSED = "_unparsed"
UNPARSED_WHY = "_why"


@dataclass
class ToolCallRequest:
    id: str
    name: str
    arguments: dict
    raw_arguments: str = ""  # as the model wrote them, kept so a repeat of the prompt is byte-identical


@dataclass
class ModelUsage:
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class ModelResponse:
    text: str
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: ModelUsage = field(default_factory=ModelUsage)
    model: str = ""


class ModelUnavailable(Exception):
    """The model could not be reached after every try. Its text is technical detail, for the log and the admin."""


class ModelRefused(ModelUnavailable):
    """The endpoint answered, refusing the call (a 4xx: a wrong key, an unknown model name, a request it won't take):
    nothing was tried again, since the same request gets the same answer."""


class MalformedAnswer(Exception):
    """The endpoint answered 200 with something that isn't a chat completion (garbage, an HTML page, no choices)."""


class ModelNotConfigured(Exception):
    """No model endpoint is configured: the product runs, and Home says how to connect one."""


def model_settings(model_id: str) -> dict:
    models = settings.ROADSTAR_MODELS
    if model_id not in models:
        raise ValueError(f"unknown model id {model_id!r}")
    return models[model_id]


def cost_of(model_id: str, usage: ModelUsage) -> Decimal:
    """Dollars, from the per-million-token prices of spec/reference/models.md."""
    prices = model_settings(model_id)["prices"]
    uncached = max(usage.input_tokens - usage.cached_input_tokens, 0)
    total = (
        Decimal(uncached) * Decimal(str(prices["input"]))
        + Decimal(usage.cached_input_tokens) * Decimal(str(prices["cached_input"]))
        + Decimal(usage.output_tokens) * Decimal(str(prices["output"]))
    )
    return total / Decimal(1_000_000)


class OpenAIModel:
    """Chat Completions through the `openai` SDK, with tool calls, usage, and Roadstar's retry schedule."""

    def __init__(self, *, api_key: str | None, base_url: str | None, sleep: Callable[[float], None] = time.sleep,
                 timeout: float = 120.0, http_client=None, names: dict[str, str] | None = None):
        import openai

        self._openai = openai
        # The SDK's own retries are off: the schedule is the spec's, and each try is logged.
        # `http_client`: the SDK's HTTP client, for tests. The SDK speaks `httpx2`, which respx does not see; an
        # `httpx.Client` given here is one respx mocks, so recorded exchanges go through the real client.
        self.client = openai.OpenAI(api_key=api_key or "not-needed", base_url=base_url, max_retries=0, timeout=timeout,
                                    http_client=http_client)
        self.sleep = sleep
        self.names = names or {}  # Roadstar id -> the endpoint's model name, as the owner set it (Settings)

    def complete(self, *, model_id: str, messages: list[dict], tools: list[dict], thinking: str | None = None,
                 tool_choice: str | None = None, json_schema: dict | None = None,
                 max_tokens: int | None = None) -> ModelResponse:
        """`json_schema` (`{name, schema}`) asks for an answer that is strictly that JSON (structured outputs).
        `max_tokens` bounds the answer (reasoning included), so a caller can know the most a call costs."""
        network_call("a model call")
        config = dict(model_settings(model_id))
        config["name"] = self.names.get(model_id) or config["name"]
        request = {"model": config["name"], "messages": messages}
        if max_tokens:
            request["max_completion_tokens"] = max_tokens
        if tools:
            request["tools"] = [{"type": "function", "function": t} for t in tools]
            if tool_choice:
                request["tool_choice"] = tool_choice
        if json_schema:
            request["response_format"] = {"type": "json_schema", "json_schema": {**json_schema, "strict": True}}
        if thinking and config.get("reasoning", False):
            request["reasoning_effort"] = thinking
        retryable = (
            self._openai.APIConnectionError,
            self._openai.APITimeoutError,
            self._openai.RateLimitError,
            self._openai.InternalServerError,
        )
        # The first call, then 5 more tries after 2, 4, 8, 16 and 32 seconds (spec/reference/limits.md: "Tries of a
        # failed model call: 5, about 2, 4, 8, 16 and 32 seconds apart"). A 200 whose body isn't a chat completion
        # is a failed call like a 5xx: a proxy's error page or a cut-off body says nothing about the next try.
        for attempt in range(len(RETRY_DELAYS) + 1):
            try:
                return _response_from(self.client.chat.completions.create(**request))
            except (*retryable, MalformedAnswer, json.JSONDecodeError) as error:
                if attempt == len(RETRY_DELAYS):
                    raise ModelUnavailable(
                        f"{config['name']} did not answer: the first call and {attempt} tries again failed; "
                        f"the last with {type(error).__name__}: {error}"
                    ) from error
                delay = RETRY_DELAYS[attempt]
                logger.warning("model call failed (%s: %s); trying again in %ss", type(error).__name__, error, delay)
                self.sleep(delay)
            except self._openai.APIStatusError as error:
                raise ModelRefused(f"{config['name']} refused the call: {error}") from error
        raise AssertionError("unreachable: the last try returns or raises")


def _response_from(completion) -> ModelResponse:
    choices = getattr(completion, "choices", None)
    if not choices or getattr(choices[0], "message", None) is None:
        # The SDK hands back a non-JSON body as a string, and a JSON body of another shape as an empty completion.
        raise MalformedAnswer(f"not a chat completion: {str(completion)[:200]!r}")
    choice = choices[0].message
    calls = []
    for call in choice.tool_calls or []:
        raw = call.function.arguments or "{}"
        try:
            # As real models write them: the object as a JSON string, a trailing comma or a fence are read.
            arguments = read_object(raw, what=f"Your arguments to {call.function.name}")
        except NotAnObject as problem:
            # Not a JSON object (cut off, broken, or `[]`, `null`): kept as written, so the tool answers with a
            # bad_input the model can correct, rather than running on nothing.
            arguments = {UNPARSED: raw, UNPARSED_WHY: str(problem)}
        calls.append(ToolCallRequest(id=call.id, name=call.function.name, arguments=arguments, raw_arguments=raw))
    usage = ModelUsage()
    if completion.usage is not None:
        details = getattr(completion.usage, "prompt_tokens_details", None)
        usage = ModelUsage(
            input_tokens=completion.usage.prompt_tokens or 0,
            cached_input_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
            output_tokens=completion.usage.completion_tokens or 0,
        )
    return ModelResponse(text=choice.content or "", tool_calls=calls, usage=usage, model=completion.model or "")


class ScriptedModel:
    """Replays scripted responses in order and keeps every request, so tests assert what the model was sent.

    Each script item is a ModelResponse, or a function of the request returning one (to answer from what was
    sent). Running out of script is a test failure, raised loudly.
    """

    def __init__(self, script: list | None = None):
        self.script = list(script or [])
        self.requests: list[dict] = []

    def add(self, *items):
        self.script.extend(items)
        return self

    def complete(self, *, model_id: str, messages: list[dict], tools: list[dict], thinking: str | None = None,
                 tool_choice: str | None = None, json_schema: dict | None = None,
                 max_tokens: int | None = None) -> ModelResponse:
        request = {"model_id": model_id, "messages": messages, "tools": tools, "thinking": thinking,
                   "tool_choice": tool_choice, "json_schema": json_schema, "max_tokens": max_tokens}
        self.requests.append(request)
        if not self.script:
            raise AssertionError(f"the scripted model ran out of responses at request {len(self.requests)}")
        item = self.script.pop(0)
        response = item(request) if callable(item) else item
        if response.usage.input_tokens == 0:
            # Roughly what a tokenizer would count, so budgets and benchmarks see plausible numbers.
            response.usage.input_tokens = len(json.dumps(messages)) // 4 + len(json.dumps(tools)) // 4
        return response


def say(text: str) -> ModelResponse:
    return ModelResponse(text=text)


def call(name: str, arguments: dict | None = None, *, id: str | None = None, text: str = "") -> ModelResponse:
    """One step that calls one tool (the common case in scripts)."""
    return calls([(name, arguments or {})], id=id, text=text)


_counter = iter(range(1, 10**9))


def calls(pairs: list[tuple[str, dict]], *, id: str | None = None, text: str = "") -> ModelResponse:
    requests = []
    for name, arguments in pairs:
        call_id = id or f"call_{next(_counter)}"
        requests.append(
            ToolCallRequest(id=call_id, name=name, arguments=arguments, raw_arguments=json.dumps(arguments))
        )
        id = None
    return ModelResponse(text=text, tool_calls=requests)


_override = None


def set_model(model) -> None:
    """Tests (and benchmarks) put a scripted model in place; None goes back to the configured one."""
    global _override
    _override = model


def model_connected(org=None) -> bool:
    """Whether a turn can reach a model now: Home and the chats say so plainly when none is connected."""
    return _override is not None or bool(settings.MODEL_CONFIGURED) or endpoint_for(org) is not None


NOT_CONNECTED = ("No AI model is connected to Roadstar yet. Connect one on Settings (AI model); then press Try "
                 "again on the work that waited.")


def get_model(org=None):
    """The model the workspace's calls go to: the server's environment where it sets one, else the owner's
    Settings (read each time, so a change there needs no restart)."""
    if _override is not None:
        return _override
    endpoint = endpoint_for(org)
    if endpoint is None and settings.MODEL_CONFIGURED:  # (the environment's, read once as the process started)
        return _configured_model(settings.OPENAI_API_KEY, settings.OPENAI_BASE_URL)
    if endpoint is None:
        raise ModelNotConfigured(NOT_CONNECTED)
    return _configured_model(endpoint.api_key, endpoint.base_url, endpoint.names)


@functools.lru_cache(maxsize=8)
def _configured_model(api_key: str | None, base_url: str | None,
                      names: tuple[tuple[str, str], ...] = ()) -> OpenAIModel:
    """One client a process for each endpoint: making one loads TLS certificates and opens a connection pool, which
    cost every turn and every check a tenth of a second when made each time. The SDK's client is safe to share
    between threads."""
    return OpenAIModel(api_key=api_key, base_url=base_url, names=dict(names))


def endpoint_try(*, base_url: str | None, api_key: str | None, name: str) -> tuple[bool, str]:
    """One real call to an endpoint, as the owner's Test button makes it: whether it answered, and what happened in
    the owner's words. No tries again: the owner is waiting on the page."""
    import openai

    network_call("the model settings' test call")
    client = openai.OpenAI(api_key=api_key or "not-needed", base_url=base_url or None, max_retries=0, timeout=20.0)
    where = base_url or "OpenAI"
    try:
        completion = client.chat.completions.create(
            model=name, messages=[{"role": "user", "content": "Say OK."}], max_completion_tokens=20,
        )
        answer = _response_from(completion)
    except openai.AuthenticationError:
        return False, f"{where} answered that the key isn't right (it refused it with 401). Check the key."
    except openai.PermissionDeniedError:
        return False, f"{where} answered that this key may not use “{name}” (403)."
    except openai.NotFoundError:
        return False, (f"{where} answered “not found” (404): it has no model named “{name}”, or the address "
                       "isn't the endpoint's (it usually ends in /v1).")
    except openai.RateLimitError:
        return False, f"{where} answered that the key is over its limit or out of credit (429). Try again later."
    except openai.APITimeoutError:
        return False, f"{where} didn't answer within 20 seconds."
    except openai.APIConnectionError:
        return False, f"Roadstar couldn't reach {where}: nothing answered at that address."
    except openai.APIStatusError as error:
        return False, f"{where} refused the call ({error.status_code}): {str(error.message)[:200]}"
    except (MalformedAnswer, json.JSONDecodeError):
        return False, f"{where} answered, but not as an OpenAI-compatible endpoint does (no chat completion came back)."
    said = " ".join((answer.text or "").split())[:120]
    return True, f"It works: “{name}” at {where} answered" + (f" “{said}”." if said else ".")
