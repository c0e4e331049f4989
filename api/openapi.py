"""What the API answers, described for the OpenAPI schema (drf-spectacular). Nothing here shapes an answer: the
shapes do (contacts.shapes, companies.shapes, docs.shapes, api.shapes). A shape that gains a key gains it here
too; tests/api/test_fuzz.py checks every answer against these descriptions.

`required=False` marks a key a shape leaves out when it has no value; `allow_null` one it gives as null.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from core.errors import ERROR_KINDS


def Str(**kw):  # noqa: N802
    return serializers.CharField(**kw)


def NullStr(**kw):  # noqa: N802
    return serializers.CharField(allow_null=True, **kw)


def Time(**kw):  # noqa: N802
    return serializers.DateTimeField(**kw)


def NullTime(**kw):  # noqa: N802
    return serializers.DateTimeField(allow_null=True, **kw)


def Any(**kw):  # noqa: N802
    return serializers.JSONField(**kw)


def Obj(**kw):  # noqa: N802
    return serializers.DictField(**kw)


def Strs(**kw):  # noqa: N802
    return serializers.ListField(child=serializers.CharField(), **kw)


def NextOffset():  # noqa: N802
    return serializers.IntegerField(allow_null=True, help_text="The offset of the next page; null on the last.")


# --- errors -----------------------------------------------------------------------------------------------


class Error(serializers.Serializer):
    error = serializers.ChoiceField(choices=list(ERROR_KINDS), help_text="One of the 12 kinds of the errors reference.")
    message = Str(help_text="What happened and what to do, for a person to read.")
    card = Str(help_text="The Home card that offers the fix, when there is one.", required=False)


ERROR_HELP = {
    400: "bad_input: the input can't run as written; the message says what and where.",
    401: "reauth: no valid token or session.",
    403: "forbidden: this sign-in may not do that.",
    404: "not_found: nothing at that id in this workspace.",
    409: "changed: what it was about changed since it was read (or was undone already).",
    422: "unsupported: a request this record can't take.",
}


def errors(*statuses: int) -> dict:
    """The error answers of an operation, all in the one shape; 400, 401 and 403 come with every one."""
    codes = sorted({400, 401, 403, *statuses})
    return {code: OpenApiResponse(Error, description=ERROR_HELP[code]) for code in codes}


# --- shared pieces ----------------------------------------------------------------------------------------


class By(serializers.Serializer):
    kind = Str()
    id = Str()


class Ref(serializers.Serializer):
    id = Str()
    name = Str()


class OpenItem(serializers.Serializer):
    id = Str()
    kind = serializers.ChoiceField(choices=["you", "them", "follow_up"])
    text = Str()
    at = Time()
    thread = Str(required=False)
    link = Str(required=False)
    by = By()


class LogEntry(serializers.Serializer):
    id = Str()
    at = Time()
    by = By()
    kind = Str()
    text = Str(required=False)
    before = Any(allow_null=True, required=False)
    after = Any(allow_null=True, required=False)
    why = Str(required=False)


# --- agents and conversations -----------------------------------------------------------------------------


class JobDescription(serializers.Serializer):
    owns = Str()
    good = Str()
    works = Str()
    asksFirst = Str()  # noqa: N815


class Agent(serializers.Serializer):
    id = Str()
    name = Str()
    isRoadstar = serializers.BooleanField()  # noqa: N815
    job = Str()
    jobDescription = JobDescription()  # noqa: N815
    model = Str()
    thinking = Str()
    reportsTo = Ref(allow_null=True)  # noqa: N815
    department = Str()
    monthlyBudget = NullStr(help_text="Dollars a month, to the cent; null: no budget.")  # noqa: N815
    spentThisMonth = Str(help_text="Dollars spent since the first of the owner's month.")  # noqa: N815
    paused = serializers.BooleanField()
    runsOn = Str()  # noqa: N815
    createdAt = Time()  # noqa: N815
    updatedAt = Time()  # noqa: N815


class AgentList(serializers.Serializer):
    items = Agent(many=True)


class Conversation(serializers.Serializer):
    id = Str()
    agent = Ref()
    kind = serializers.ChoiceField(choices=["chat", "thread", "outside"])
    title = Str()
    state = Str()
    open = serializers.BooleanField()
    createdAt = Time()  # noqa: N815
    updatedAt = Time()  # noqa: N815


class ConversationPage(serializers.Serializer):
    items = Conversation(many=True)
    nextOffset = NextOffset()  # noqa: N815


class Message(serializers.Serializer):
    seq = serializers.IntegerField()
    role = Str()
    text = Str()
    data = Obj()
    at = Time()


class MessagePage(serializers.Serializer):
    conversation = Conversation()
    items = Message(many=True)
    nextBefore = serializers.IntegerField(allow_null=True, help_text="Pass as before for older messages.")  # noqa: N815
    nextAfter = serializers.IntegerField(allow_null=True, help_text="Pass as after for newer messages.")  # noqa: N815


class MessageSent(serializers.Serializer):
    conversation = Conversation()
    message = Message()


class TryAgain(serializers.Serializer):
    conversation = Conversation()


# --- Home -------------------------------------------------------------------------------------------------


class Work(serializers.Serializer):
    id = Str()
    agent = Ref()
    conversationId = Str()  # noqa: N815
    conversationKind = Str()  # noqa: N815
    conversationTitle = Str()  # noqa: N815
    requestedBy = Ref(allow_null=True)  # noqa: N815
    task = Str()
    state = Str()
    latestReply = Str()  # noqa: N815
    answer = Str()
    createdAt = Time()  # noqa: N815
    answeredAt = NullTime()  # noqa: N815


class WorkPage(serializers.Serializer):
    items = Work(many=True)
    nextOffset = NextOffset()  # noqa: N815


class Card(serializers.Serializer):
    id = Str()
    kind = Str()
    title = Str()
    body = Str()
    actionLabel = Str()  # noqa: N815
    actionUrl = Str()  # noqa: N815
    data = Obj()
    createdAt = Time()  # noqa: N815
    resolvedAt = NullTime()  # noqa: N815


class CardList(serializers.Serializer):
    items = Card(many=True)


class Actor(serializers.Serializer):
    kind = Str()
    id = Str()
    name = Str()


class ChangeLine(serializers.Serializer):
    id = Str()
    text = Str(help_text="The line as Home shows it: who did what.")
    sentence = Str()
    actor = Actor()
    tool = Str()
    kind = Str()
    at = Time()
    canUndo = serializers.BooleanField()  # noqa: N815
    undoneAt = NullTime()  # noqa: N815
    isUndo = serializers.BooleanField()  # noqa: N815
    targetType = Str()  # noqa: N815
    targetId = Str()  # noqa: N815


class ChangePage(serializers.Serializer):
    items = ChangeLine(many=True)
    nextBefore = NullTime(help_text="Pass as before for the next, older page; null on the last.")  # noqa: N815


class Undone(serializers.Serializer):
    undone = ChangeLine(help_text="The change, now undone.")
    undo = ChangeLine(help_text="The Undo's own line.")


class Home(serializers.Serializer):
    cards = Card(many=True)
    work = WorkPage()
    changes = ChangePage()


# --- contacts ---------------------------------------------------------------------------------------------


class CompanyRef(serializers.Serializer):
    id = Str()
    name = Str()
    ticker = NullStr()
    handle = Str()
    role = NullStr()
    since = NullStr()
    ended = NullStr()
    labels = Strs()


class ContactCompact(serializers.Serializer):
    id = Str()
    name = Str()
    company = NullStr()
    labels = Strs()
    last = Obj()
    open = OpenItem(allow_null=True)


class ContactList(serializers.Serializer):
    items = ContactCompact(many=True)
    nextOffset = NextOffset()  # noqa: N815
    total = serializers.IntegerField()


class ContactRecord(serializers.Serializer):
    id = Str()
    organizationId = Str()  # noqa: N815
    name = Str()
    emails = Strs()
    phone = NullStr()
    jobTitle = NullStr()  # noqa: N815
    labels = Strs()
    context = NullStr()
    open = OpenItem(many=True)
    last = Obj()
    fields = Obj()
    status = Str()
    companies = CompanyRef(many=True)
    projects = Ref(many=True)
    createdAt = Time()  # noqa: N815
    updatedAt = Time()  # noqa: N815


class ContactRead(ContactRecord):
    log = LogEntry(many=True, help_text="The newest 20 entries of the contact's log.")


# --- companies --------------------------------------------------------------------------------------------


class RowOpenItem(OpenItem):
    person = NullStr(help_text="Whose it is, when it is one of the company's people's.")


class CompanyRow(serializers.Serializer):
    id = Str()
    name = Str()
    website = NullStr()
    domains = Strs()
    labels = Strs()
    handler = NullStr()
    people = Ref(many=True)
    peopleCount = serializers.IntegerField()  # noqa: N815
    open = RowOpenItem(allow_null=True)
    openCount = serializers.IntegerField()  # noqa: N815
    openKinds = Strs()  # noqa: N815
    last = NullTime()


class CompanyList(serializers.Serializer):
    items = CompanyRow(many=True)
    nextOffset = NextOffset()  # noqa: N815
    total = serializers.IntegerField()


class CompanyPerson(serializers.Serializer):
    id = Str()
    name = Str()
    emails = Strs()
    phone = NullStr()
    labels = Strs()
    open = OpenItem(many=True)
    last = Obj()
    role = NullStr()
    since = NullStr()
    ended = NullStr()


class CompanyCounts(serializers.Serializer):
    timeline = serializers.IntegerField()
    projects = serializers.IntegerField()
    docs = serializers.IntegerField()
    files = serializers.IntegerField()


class TimelineEntry(serializers.Serializer):
    id = Str()
    kind = Str()
    title = Str()
    at = Time()
    people = serializers.ListField(child=Obj())
    ours = serializers.ListField(child=Obj())
    by = Obj()
    updatedAt = Time()  # noqa: N815
    summary = Str(required=False)
    count = serializers.IntegerField(required=False)
    minutes = serializers.IntegerField(required=False)
    link = Str(required=False)
    thread = Str(required=False)
    files = serializers.ListField(child=Obj(), required=False)
    state = Str(required=False)


class CompanyRecord(serializers.Serializer):
    id = Str()
    name = Str()
    website = NullStr()
    domains = Strs()
    labels = Strs()
    context = NullStr()
    contextBy = Obj(allow_null=True)  # noqa: N815
    contextAt = NullTime()  # noqa: N815
    details = Obj()
    about = Obj(allow_null=True)
    handler = NullStr()
    firstOnMail = serializers.BooleanField()  # noqa: N815
    alwaysAsk = serializers.BooleanField()  # noqa: N815
    listed = Any(allow_null=True)
    files = serializers.ListField(child=Any())
    open = OpenItem(many=True)
    people = CompanyPerson(many=True)
    known = Time()
    last = NullTime()
    counts = CompanyCounts()
    createdAt = Time()  # noqa: N815
    updatedAt = Time()  # noqa: N815


class CompanyRead(CompanyRecord):
    timeline = TimelineEntry(many=True, help_text="The newest 20 conversations.")


class TimelinePage(serializers.Serializer):
    items = TimelineEntry(many=True)
    total = serializers.IntegerField()
    counts = serializers.DictField(child=serializers.IntegerField())
    nextBefore = NullStr(help_text="Pass as before for the next, older page; null on the last.")  # noqa: N815


# --- projects and docs ------------------------------------------------------------------------------------


class Project(serializers.Serializer):
    id = Str()
    organizationId = Str()  # noqa: N815
    name = Str()
    description = Str()
    createdByUserId = NullStr()  # noqa: N815
    updatedByUserId = NullStr()  # noqa: N815
    createdAt = Time()  # noqa: N815
    updatedAt = Time()  # noqa: N815


class ProjectPage(serializers.Serializer):
    items = Project(many=True)
    nextOffset = NextOffset()  # noqa: N815


class DocListItem(serializers.Serializer):
    id = Str()
    title = Str()
    type = Str()
    projectId = Str()  # noqa: N815
    projectName = Str()  # noqa: N815
    status = Str()
    generationStatus = Any(allow_null=True)  # noqa: N815
    updatedAt = Time()  # noqa: N815


class DocPage(serializers.Serializer):
    items = DocListItem(many=True)
    nextOffset = NextOffset()  # noqa: N815


class OpenNote(serializers.Serializer):
    noteId = Str()  # noqa: N815
    on = Str()
    note = NullStr()


class DocRead(serializers.Serializer):
    id = Str()
    title = Str()
    projectId = NullStr()  # noqa: N815
    brief = NullStr()
    readFirst = serializers.ListField(child=Obj())  # noqa: N815
    updates = Str()
    text = NullStr()
    notes = OpenNote(many=True, help_text="The owner's notes no one has answered yet.")


class NoteAnswer(serializers.Serializer):
    id = Str()
    note = NullStr()
    by = Obj()
    state = Str()
    at = Time()


class DocNote(serializers.Serializer):
    id = Str()
    docId = Str()  # noqa: N815
    on = Str()
    note = NullStr()
    by = Obj()
    state = Str()
    at = Time()
    answers = NoteAnswer(many=True, required=False)


class DocNoteList(serializers.Serializer):
    items = DocNote(many=True)
