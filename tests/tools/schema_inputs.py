"""Hypothesis strategies for a tool's input, drawn from its JSON schema (the subset pydantic writes: objects with
properties, `$ref`/`$defs`, `anyOf`, enums, strings with lengths, patterns and date formats, bounded numbers,
arrays).

`inputs(schema)` draws what the schema allows. `inputs(schema, loose=True)` draws what a careless or hostile
caller may send too: text just past its limit or holding NUL or a lone surrogate, whole numbers far out of range
(10**30, 1e30, -1), dates in year 9999 at -14:00, one item too many, a required input left out, a name the tool
doesn't take, and now and then a value of the wrong type.

(hypothesis-jsonschema would draw the first kind, but its releases don't run on this Hypothesis.)
"""

from __future__ import annotations

import datetime

from hypothesis import strategies as st

# Kept small so each example runs quickly: the limits themselves are tried in loose mode.
LIST_CAP = 4
TEXT_CAP = 40

_json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
ANY_JSON = st.recursive(
    _json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_ODD_TEXT = st.sampled_from(["", " ", "\x00", "Dana\x00", "\ud800", "a" * 5000, "9999-12-31T23:59:59-14:00",
                             "0000-00-00", "NaN", "-1", "<script>", "' OR 1=1 --", "💥" * 3])
_ODD_TIMES = st.sampled_from(["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "9999-12-31",
                              "0001-01-01", "2026-13-45T99:00:00", "2026-11-13", "tomorrow"])
_ODD_WHOLES = st.sampled_from([10**30, -(10**30), 2**63, 2**31, -1, 0, 1e30, 3.5, True, "3"])
_ZONES = st.sampled_from([None, datetime.UTC] + [datetime.timezone(datetime.timedelta(hours=h)) for h in (-14, -5, 14)])


# What a schema can't say of some inputs (a pydantic validator checks it): drawn by the input's name as well.
_URL = {"type": "string", "pattern": r"https://[a-z]{1,12}\.test/[a-z]{0,8}"}
_EMAIL = {"type": "string", "pattern": r"[a-z]{1,8}@[a-z]{1,8}\.test"}
_BY_NAME = {"url": _URL, "link": _URL, "href": _URL,
            "urls": {"type": "array", "items": _URL, "minItems": 1, "maxItems": 5},
            "to": {"type": "array", "items": _EMAIL, "maxItems": 3},
            "cc": {"type": "array", "items": _EMAIL, "maxItems": 3}}


def inputs(schema: dict, *, loose: bool = False) -> st.SearchStrategy:
    return _Drawer(schema.get("$defs", {}), loose).of(schema)


class _Drawer:
    def __init__(self, defs: dict, loose: bool):
        self.defs = defs
        self.loose = loose

    def of(self, schema: dict) -> st.SearchStrategy:
        drawn = self._of(schema)
        if self.loose:
            # A value of the wrong type, one time in about twelve.
            return st.one_of(drawn, drawn, drawn, drawn, drawn, drawn, drawn, drawn, drawn, drawn, drawn, ANY_JSON)
        return drawn

    def _of(self, schema: dict) -> st.SearchStrategy:
        if "$ref" in schema:
            return self.of(self.defs[schema["$ref"].rsplit("/", 1)[-1]])
        if "anyOf" in schema or "oneOf" in schema:
            return st.one_of([self.of(option) for option in schema.get("anyOf") or schema["oneOf"]])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(schema["enum"])
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of([self._of({**schema, "type": k}) for k in kind])
        return {
            "object": self._object, "array": self._array, "string": self._string, "integer": self._integer,
            "number": self._number, "boolean": lambda s: st.booleans(), "null": lambda s: st.none(),
        }.get(kind, lambda s: ANY_JSON)(schema)

    def _object(self, schema: dict) -> st.SearchStrategy:
        properties = schema.get("properties")
        if properties is None and schema.get("additionalProperties") is False:
            properties = {}
        if properties is None:
            values = self.of(schema["additionalProperties"]) if isinstance(
                schema.get("additionalProperties"), dict) else ANY_JSON
            return st.dictionaries(st.text(max_size=12), values, max_size=LIST_CAP)
        required = set(schema.get("required", []))

        @st.composite
        def draw(draw_):
            out = {}
            for name, prop in properties.items():
                if name in required or draw_(st.booleans()):
                    out[name] = draw_(self.of(_BY_NAME[name]) | self.of(prop) if name in _BY_NAME else self.of(prop))
            if self.loose and required and draw_(st.integers(0, 9)) == 0:
                out.pop(draw_(st.sampled_from(sorted(required))), None)  # a required input left out
            if self.loose and draw_(st.integers(0, 9)) == 0:
                out[draw_(st.sampled_from(["jobtitle", "contact_id", "extra", ""]))] = "x"  # a name it doesn't take
            return out

        return draw()

    def _array(self, schema: dict) -> st.SearchStrategy:
        items = self.of(schema.get("items", {}))
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + LIST_CAP), low + LIST_CAP)
        drawn = st.lists(items, min_size=low, max_size=high)
        if self.loose:
            over = schema.get("maxItems")
            extra = [st.lists(items, max_size=1)]  # maybe fewer than the least
            if over is not None:
                extra.append(st.lists(st.just(None), min_size=over + 1, max_size=over + 1).flatmap(
                    lambda nones: st.lists(items, min_size=len(nones), max_size=len(nones))))
            drawn = st.one_of(drawn, *extra)
        return drawn

    def _string(self, schema: dict) -> st.SearchStrategy:
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        fmt = schema.get("format")
        if fmt == "date-time":
            drawn = st.builds(lambda moment, zone: moment.replace(tzinfo=zone).isoformat(),
                              st.datetimes(min_value=datetime.datetime(999, 1, 1)), _ZONES)  # noqa: DTZ001 (hypothesis takes naive bounds)
        elif fmt == "uuid":
            drawn = st.uuids().map(str)
        elif fmt == "date":
            drawn = st.dates(min_value=datetime.date(999, 1, 1)).map(datetime.date.isoformat)
        elif schema.get("pattern"):
            drawn = st.from_regex(schema["pattern"], fullmatch=True)
            if high is not None:
                drawn = drawn.filter(lambda text: low <= len(text) <= high)
        else:
            drawn = st.text(min_size=low, max_size=min(high if high is not None else TEXT_CAP, max(low, TEXT_CAP)))
        if self.loose:
            options = [drawn, _ODD_TEXT, _ODD_TIMES]
            if high is not None:
                # just past the limit (Hypothesis draws no long text itself)
                options.append(
                    st.text(min_size=high + 1, max_size=high + 3) if high < 1000 else st.just("a" * (high + 1))
                )
            if low:
                options.append(st.text(max_size=low - 1))
            drawn = st.one_of(options)
        return drawn

    def _integer(self, schema: dict) -> st.SearchStrategy:
        drawn = st.integers(min_value=schema.get("minimum"), max_value=schema.get("maximum"))
        return st.one_of(drawn, _ODD_WHOLES) if self.loose else drawn

    def _number(self, schema: dict) -> st.SearchStrategy:
        drawn = st.floats(min_value=schema.get("minimum"), max_value=schema.get("maximum"), allow_nan=False,
                          allow_infinity=False) | st.integers(-1000, 1000)
        if self.loose:
            drawn = st.one_of(drawn, st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e308, 10**30]))
        return drawn
