"""What each API call takes, checked before any service runs: DRF serializers for input only.

Names and limits are the tools' own (tools/groups/*.py), in the spec's camelCase, so an owner's app and an agent
send the same words. A body with a name the call doesn't take is `bad_input` naming it, rather than ignored: a
misspelt `jobtitle` would otherwise change nothing and say nothing. Query strings may carry other names.

Answers are not serializers: they are the apps' shapes (contacts.shapes, companies.shapes, docs.shapes) and
api.shapes; `api.openapi` describes them for the schema.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.forms import MAX_BUDGET
from core import limits
from core.owner_zone import owner_time

MAX_OFFSET = 1_000_000_000  # past any workspace's rows, and within what a database takes as a number
MAX_DAYS = 36_500
MAX_SEQ = 2**31 - 1


def Text(min_length: int = 0, max_length: int | None = None, **kwargs):  # noqa: N802  (reads like a type)
    """Text as given: no trimming (the services trim where a value must have words), no NUL, no lone surrogate."""
    return serializers.CharField(
        min_length=min_length or None, max_length=max_length, allow_blank=min_length == 0, trim_whitespace=False,
        **kwargs,
    )


def _no_bad_characters(value, where: str = "") -> None:
    """JSON a workspace keeps: text without NUL (PostgreSQL refuses it) or lone surrogates (no encoding holds one)."""
    if isinstance(value, str):
        if "\x00" in value:
            raise serializers.ValidationError(f"{where or 'value'}: must not hold the NUL character")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise serializers.ValidationError(f"{where or 'value'}: must be valid Unicode text") from exc
    elif isinstance(value, dict):
        for key, inner in value.items():
            _no_bad_characters(key, where)
            _no_bad_characters(inner, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            _no_bad_characters(inner, f"{where}[{i}]")


@extend_schema_field({"type": "object", "additionalProperties": {}})
class JsonObject(serializers.JSONField):
    # A JSON object of any values, as a contact's `fields` holds them.

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be an object")
        _no_bad_characters(value)
        return value


class Input(serializers.Serializer):
    # A request body: a name the call doesn't take is `bad_input`, naming it and the names it takes. (A comment,
    # not a docstring: the schema shows a serializer's docstring as its description.)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = [key for key in data if key not in self.fields]
            if unknown:
                names = ", ".join(self.fields) or "none"
                raise serializers.ValidationError(
                    {key: [f"this call takes no {key!r}; it takes {names}"] for key in unknown}
                )
        return super().to_internal_value(data)


class Query(serializers.Serializer):
    # A query string's values; other names are left alone.

    def to_internal_value(self, data):
        # A QueryDict gives each name's last value; take them as plain text.
        plain = {key: data.get(key) for key in data} if hasattr(data, "getlist") else data
        return super().to_internal_value(plain)


def Offset():  # noqa: N802
    return serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0)


OPEN_KINDS = ["you", "them", "follow_up"]


# --- agents -----------------------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "pattern": r"^[0-9]{1,8}(\.[0-9]{1,2})?$", "example": "60.00"})
class Dollars(serializers.DecimalField):
    # Dollars to the cent, more than 0, as text ("60", "75.50"); a JSON number is taken too.
    def __init__(self, **kwargs):
        super().__init__(max_digits=10, decimal_places=2, min_value=Decimal("0.01"), max_value=MAX_BUDGET, **kwargs)


class AgentBudgetInput(Input):
    monthlyBudget = Dollars(  # noqa: N815  (the spec's camelCase)
        help_text="The agent's monthly budget in dollars to the cent, more than 0. Past it, the agent pauses.",
    )


# --- conversations ----------------------------------------------------------------------------------------


class ConversationListQuery(Query):
    agent = serializers.UUIDField(required=False, help_text="Only this agent's conversations.")
    kind = serializers.ChoiceField(choices=["chat", "thread", "outside"], required=False)
    offset = Offset()


class MessagePageQuery(Query):
    after = serializers.IntegerField(
        min_value=-1, max_value=MAX_SEQ, required=False,
        help_text="Messages after this seq, oldest first (-1: from the first). Poll with the last seq you have.",
    )
    before = serializers.IntegerField(
        min_value=0, max_value=MAX_SEQ, required=False,
        help_text="The messages just before this seq. Without after or before: the newest.",
    )
    limit = serializers.IntegerField(min_value=1, max_value=200, default=50)


class MessageInput(Input):
    text = Text(1, 20_000, help_text="What the owner says to the agent.")


# --- contacts ---------------------------------------------------------------------------------------------


class ContactListQuery(Query):
    label = Text(1, 40, required=False)
    company = Text(1, 200, required=False, help_text="A company's name or id: only people who work there now.")
    query = Text(0, 200, required=False, help_text="Words in the name, job title or an address.")
    open = serializers.ChoiceField(
        choices=OPEN_KINDS, required=False, help_text="Only those with an open item of this kind."
    )
    quietDays = serializers.IntegerField(  # noqa: N815
        min_value=0, max_value=MAX_DAYS, required=False, help_text="Only those not in touch for this many days."
    )
    offset = Offset()


class ContactCreateInput(Input):
    name = Text(1, 200)
    emails = serializers.ListField(child=Text(0, 254), max_length=50, required=False, default=list)
    phone = Text(0, 80, required=False, allow_null=True)
    jobTitle = Text(0, 200, required=False, allow_null=True)  # noqa: N815
    labels = serializers.ListField(child=Text(1, 40), max_length=50, required=False, default=list)
    companyIds = serializers.ListField(  # noqa: N815
        child=serializers.UUIDField(format="hex_verbose"), max_length=50, required=False, default=list
    )
    # A declared field named `fields`: DRF takes it out of the class into the serializer's fields, so it doesn't
    # hide Serializer.fields (which the stubs type as that property).
    fields = JsonObject(required=False, default=dict, help_text="Named values, such as birthday.")  # type: ignore[assignment]


class ContactUpdateInput(Input):
    """The values given change; those left out stay. phone or jobTitle null clears it; a `fields` name given null
    is taken off."""

    name = Text(1, 200, required=False)
    emails = serializers.ListField(child=Text(0, 254), max_length=50, required=False)
    phone = Text(0, 80, required=False, allow_null=True)
    jobTitle = Text(0, 200, required=False, allow_null=True)  # noqa: N815
    labels = serializers.ListField(child=Text(1, 40), max_length=50, required=False)
    fields = JsonObject(required=False)  # type: ignore[assignment]  # a declared field named `fields` (above)

    ATTRS = {"name": "name", "emails": "emails", "phone": "phone", "jobTitle": "job_title", "labels": "labels",
             "fields": "fields"}

    def changes(self) -> dict:
        """The values given, by the Contact attribute they change, as contacts.services.contact_update takes them."""
        return {self.ATTRS[key]: value for key, value in self.validated_data.items()}


class NoteInput(Input):
    text = Text(1, 2000)


# --- companies --------------------------------------------------------------------------------------------


class CompanyListQuery(Query):
    label = Text(1, 40, required=False)
    query = Text(0, 200, required=False, help_text="Words in the name, website or a domain.")
    open = serializers.ChoiceField(choices=OPEN_KINDS, required=False)
    quietDays = serializers.IntegerField(min_value=0, max_value=MAX_DAYS, required=False)  # noqa: N815
    handledBy = Text(1, 80, required=False, help_text="An agent's name or id.")  # noqa: N815
    offset = Offset()


class CompanyPersonInput(Input):
    contactId = serializers.UUIDField(format="hex_verbose")  # noqa: N815
    role = Text(1, 200, required=False, allow_null=True)


class CompanyCreateInput(Input):
    name = Text(1, 200)
    website = Text(1, 300, required=False, allow_null=True)
    domains = serializers.ListField(child=Text(1, 200), max_length=10, required=False, default=list)
    labels = serializers.ListField(child=Text(1, 40), max_length=20, required=False, default=list)
    handler = Text(1, 80, required=False, allow_null=True, help_text="The agent that handles it: a name or id.")
    people = serializers.ListField(child=CompanyPersonInput(), max_length=200, required=False, default=list)


class CompanyUpdateInput(Input):
    """The values given change; a null is as if left out, except handler, which null clears. `details` merge by
    name, a null value taking one off."""

    name = Text(1, 200, required=False, allow_null=True)
    domains = serializers.ListField(child=Text(1, 200), max_length=10, required=False, allow_null=True)
    labels = serializers.ListField(child=Text(1, 40), max_length=20, required=False, allow_null=True)
    handler = Text(1, 80, required=False, allow_null=True)
    details = serializers.DictField(
        child=Text(0, 1000, allow_null=True), required=False, allow_null=True, help_text="Named facts such as Terms."
    )
    why = Text(0, 2000, required=False, default="", help_text="Why it changed, for the company's log.")

    def validate_details(self, value):
        _no_bad_characters(value, "details")
        return value

    def changes(self) -> dict:
        data = self.validated_data
        given = {key: data[key] for key in ("name", "domains", "labels", "details") if data.get(key) is not None}
        if "handler" in data:
            given["handler"] = data["handler"]
        return given


def _owner_time_utc(value: str, org) -> datetime.datetime:
    """A time as given (one without an offset is in the owner's time zone), as a UTC time the database takes."""
    try:
        parsed = datetime.datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise serializers.ValidationError(
            f"{value!r} is not a time; give the last item's at as it came, such as 2026-11-10T15:12:00Z"
        ) from exc
    try:
        if parsed.tzinfo is None:
            parsed = owner_time(org, parsed)
        return parsed.astimezone(datetime.UTC)
    except (OverflowError, ValueError) as exc:
        raise serializers.ValidationError(f"{value!r} is out of range") from exc


class TimelineQuery(Query):
    kind = serializers.ChoiceField(choices=["mail", "meeting", "call", "invoice", "note"], required=False)
    contactId = serializers.UUIDField(required=False, help_text="Only entries this contact was in.")  # noqa: N815
    query = Text(0, 200, required=False)
    before = Text(1, 64, required=False, help_text="The last item's at, for the next, older page (nextBefore).")

    def validate_before(self, value):
        return _owner_time_utc(value, self.context.get("org"))


# --- projects and docs ------------------------------------------------------------------------------------


class OffsetQuery(Query):
    offset = Offset()


class ProjectCreateInput(Input):
    name = Text(1, limits.PROJECT_NAME)
    description = Text(0, limits.PROJECT_DESCRIPTION, required=False, default="")


class ProjectUpdateInput(Input):
    name = Text(1, limits.PROJECT_NAME, required=False)
    description = Text(0, limits.PROJECT_DESCRIPTION, required=False)


class DocListQuery(Query):
    projectId = serializers.UUIDField(required=False)  # noqa: N815
    title = Text(0, 300, required=False, help_text="Words in the title.")
    offset = Offset()


class DocNoteInput(Input):
    on = Text(0, limits.DOC_NOTE_ON, required=False, default="",
              help_text="The doc's words the note is on; empty for the whole doc.")
    note = Text(1, limits.DOC_NOTE)


# --- Home -------------------------------------------------------------------------------------------------


class ChangePageQuery(Query):
    before = serializers.DateTimeField(
        required=False, help_text="Lines made before this time: the nextBefore of the page before."
    )
