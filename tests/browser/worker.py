"""The browser tests' worker: the real django-q2 cluster (`manage.py worker`), with a scripted model in place of
a live one. Its workers are forked, so they inherit the model set here.

The model answers every turn in words from the newest input: "Got it: …". It never calls a tool."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "roadstar.settings.development")

import django

django.setup()

from django.core.management import call_command  # noqa: E402

from agents.runtime.model import ModelResponse, ModelUsage, set_model  # noqa: E402

_LABEL = re.compile(r"^\[#\d+\]\s*(?:\w+:\s*)?")


class EchoModel:
    def complete(self, *, model_id, messages, tools, thinking=None, tool_choice=None,
                 json_schema=None) -> ModelResponse:
        last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "") or ""
        usage = ModelUsage(input_tokens=50, output_tokens=10)
        return ModelResponse(text=f"Got it: {_LABEL.sub('', last)}", usage=usage)


if __name__ == "__main__":
    set_model(EchoModel())
    call_command("worker")
