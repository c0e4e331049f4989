"""JSON in: DRF's parser, with JSON nested too deep for Python to read answered as `bad_input`, not a crash."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JsonParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type=media_type, parser_context=parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - nested too deep") from exc
