"""Settings: the AI model the agents work with, set by the owner on a page (no terminal, no restart).

The key is stored encrypted (core.services.model_endpoint_set) and never put back on a page: the form shows only
whether one is saved. What the server's environment sets wins, field by field, and the page says which.
The Test button makes one real call with what is in the form (the saved key where the key box is left empty), saves
nothing, and says what happened in the owner's words (agents.runtime.model.endpoint_try)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from agents.runtime.model import endpoint_try, model_connected
from core import services
from core.crypto import TokensUnreadable
from core.errors import ToolError
from core.http import workspace_or_404
from core.model_endpoint import DEFAULT_NAMES, KEY_LIMIT, NAME_LIMIT, URL_LIMIT, from_environment, saved_endpoint
from core.web_addresses import model_address_refused

# The four models, as the owner reads them (spec/reference/models.md's "when to pick it").
MODEL_ROWS = (
    ("gpt-6-luna", "Light work", "simple, repetitive work, at a tenth of the standard price"),
    ("gpt-6.1-terra", "Standard", "what agents use unless you choose otherwise"),
    ("gpt-6.1-sol", "Careful", "harder judgement, at twice the standard price"),
    ("gpt-6-astra", "Hardest work", "the hardest work, at ten times the standard price"),
)
TEST_MODEL = "gpt-6.1-terra"  # the Test asks the model agents use by default


@login_required
def model_settings(request: HttpRequest) -> HttpResponse:
    org = workspace_or_404(request)
    env = from_environment()
    saved = saved_endpoint(org)
    key_unreadable = False
    try:
        has_key = bool(saved and saved.read_key())
    except TokensUnreadable:
        has_key, key_unreadable = False, True
    form: dict[str, Any] = {
        "base_url": saved.base_url if saved else "",
        "names": {model_id: (saved.names or {}).get(model_id, "") if saved else "" for model_id, *_ in MODEL_ROWS},
    }
    result = None
    status = 200
    if request.method == "POST":
        form["base_url"] = request.POST.get("base_url", "")
        form["names"] = {model_id: request.POST.get(f"name_{model_id}", "") for model_id, *_ in MODEL_ROWS}
        typed_key = request.POST.get("api_key", "").strip() or None
        if request.POST.get("action") == "test":
            result = _test(form, typed_key, saved, env)
        else:
            try:
                services.model_endpoint_set(org=org, base_url=form["base_url"], api_key=typed_key,
                                            names=form["names"], forget_key=request.POST.get("action") == "forget")
            except ToolError as error:
                messages.error(request, f"Not saved. {error.message}")
                status = 400
            else:
                messages.success(request, "Saved. Your agents use it from their next step on."
                                 if model_connected(org) else "Saved. No model is connected yet: add the key "
                                 "(and the address, for a service other than OpenAI).")
                return HttpResponseRedirect(reverse("model_settings"))
    rows = [
        {"id": model_id, "label": label, "use": use, "value": form["names"].get(model_id, ""),
         "default": DEFAULT_NAMES[model_id], "from_env": model_id in env.names,
         "env_value": settings.ROADSTAR_MODELS[model_id]["name"] if model_id in env.names else ""}
        for model_id, label, use in MODEL_ROWS
    ]
    return render(request, "settings_model.html", {
        "org": org, "form": form, "rows": rows, "env": env, "has_key": has_key, "key_unreadable": key_unreadable,
        "env_base_url": settings.OPENAI_BASE_URL or "", "connected": model_connected(org), "result": result,
        "url_limit": URL_LIMIT, "key_limit": KEY_LIMIT, "name_limit": NAME_LIMIT,
    }, status=status)


def _test(form: dict, typed_key: str | None, saved, env) -> dict:
    """One call with what the form holds: the environment's values where it sets them, as the agents would use."""
    base_url = settings.OPENAI_BASE_URL if env.base_url else form["base_url"].strip()
    key = settings.OPENAI_API_KEY if env.api_key else typed_key
    if key is None and saved is not None:
        try:
            key = saved.read_key() or None
        except TokensUnreadable:
            key = None
    if not base_url and not key:
        return {"ok": False, "text": "There is nothing to test yet: add the key (and the address, for a service "
                                     "other than OpenAI)."}
    if base_url and not base_url.startswith(("http://", "https://")):
        return {"ok": False, "text": "The address must start with http:// or https://."}
    # The environment's address is the operator's; one typed here must pass the server's rule for addresses.
    refused = model_address_refused(base_url) if base_url and not env.base_url else None
    if refused:
        return {"ok": False, "text": refused}
    name = (settings.ROADSTAR_MODELS[TEST_MODEL]["name"] if TEST_MODEL in env.names
            else " ".join(form["names"].get(TEST_MODEL, "").split()) or DEFAULT_NAMES[TEST_MODEL])
    ok, text = endpoint_try(base_url=base_url or None, api_key=key, name=name[:NAME_LIMIT])
    return {"ok": ok, "text": text}
