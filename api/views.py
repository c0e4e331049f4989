"""The REST API under /api/: the owner's agents, chats, contacts, companies, projects, docs and Home.

Each view checks its input (api.serializers), calls one service for a write or selectors for a read, and answers
with the apps' own shapes. Everything is the signed-in owner's workspace: each query is scoped by
`request.user.organization`, so another workspace's id is `not_found`, never a leak. Writes are the owner's own
actions, made as `Actor.for_user`: no check applies to them, as none applies to the owner's buttons on Home.
Errors come back in one shape (api.errors).
"""

from __future__ import annotations

from typing import TypeVar

from django.urls import Resolver404, resolve
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from agents import selectors as agent_selectors
from agents import services as agent_services
from agents.models import Conversation
from api import openapi as doc
from api import selectors, serializers
from api.errors import error_response
from api.parsers import JsonParser
from api.permissions import IsWorkspaceOwner
from api.shapes import (
    agent_shape,
    card_shape,
    change_line_shape,
    conversation_shape,
    doc_note_shape,
    iso_exact,
    message_shape,
    work_shape,
)
from api.tokens import ApiTokenAuthentication
from companies import selectors as company_selectors
from companies import services as company_services
from companies.shapes import company_read_shape, company_record, company_row, timeline_entry_shape
from contacts import selectors as contact_selectors
from contacts import services as contact_services
from contacts.shapes import contact_compact, contact_read_shape, log_entry_shape
from core import selectors as core_selectors
from core import services as home_services
from core.actors import Actor
from core.errors import ToolError
from core.http import user_workspace
from core.timefmt import iso
from docs import selectors as doc_selectors
from docs import services as doc_services
from docs.shapes import doc_list_item, doc_read_shape, project_shape

# The serializer a view checks its body with, so its own methods (changes()) are typed.
S = TypeVar("S", bound=Serializer)


class ApiView(APIView):
    # Token first: its `WWW-Authenticate` header makes a missing sign-in a 401 rather than a 403.
    authentication_classes = [ApiTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated, IsWorkspaceOwner]
    # JSON in, JSON out: a form's flat fields can't say a list or a null.
    parser_classes = [JsonParser]
    renderer_classes = [JSONRenderer]

    @property
    def org(self):
        return user_workspace(self.request.user)

    @property
    def actor(self) -> Actor:
        return Actor.for_user(self.request.user)

    def body(self, serializer_class: type[S]) -> S:
        checked = serializer_class(data=self.request.data, context={"org": self.org})
        checked.is_valid(raise_exception=True)
        return checked

    def query(self, serializer_class) -> dict:
        checked = serializer_class(data=self.request.query_params, context={"org": self.org})
        checked.is_valid(raise_exception=True)
        return checked.validated_data


def _page(items: list, next_offset: int | None) -> dict:
    return {"items": items, "nextOffset": next_offset}


def _offset_page(offset: int, shown: int, total: int) -> int | None:
    end = offset + shown
    return end if end < total else None


# --- agents -----------------------------------------------------------------------------------------------


class AgentList(ApiView):
    @extend_schema(
        operation_id="agents_list", tags=["agents"], summary="The owner's agents, Roadstar first",
        responses={200: doc.AgentList, **doc.errors()},
    )
    def get(self, request):
        return Response({"items": [agent_shape(a, spent=s) for a, s in selectors.agents_with_spend(org=self.org)]})


class AgentDetail(ApiView):
    @extend_schema(
        operation_id="agents_read", tags=["agents"],
        summary="An agent: job description, model, budget and spend this month",
        responses={200: doc.Agent, **doc.errors(404)},
    )
    def get(self, request, agent_id):
        agent = selectors.agent_get(org=self.org, agent_id=agent_id)
        return Response(agent_shape(agent, spent=agent_selectors.agent_spend_this_month(agent=agent)))

    @extend_schema(
        operation_id="agents_set_budget", tags=["agents"],
        summary="Set an agent's monthly budget; a paused agent works again once it covers the month's spend",
        request=serializers.AgentBudgetInput, responses={200: doc.Agent, **doc.errors(404)},
    )
    def patch(self, request, agent_id):
        budget = self.body(serializers.AgentBudgetInput).validated_data["monthlyBudget"]
        agent = selectors.agent_get(org=self.org, agent_id=agent_id)
        agent = agent_services.agent_raise_budget(org=self.org, agent=agent, monthly_budget=budget)
        return Response(agent_shape(agent, spent=agent_selectors.agent_spend_this_month(agent=agent)))


# --- conversations ----------------------------------------------------------------------------------------


def _message_page(view: ApiView, conversation: Conversation) -> Response:
    params = view.query(serializers.MessagePageQuery)
    found = selectors.message_page(
        conversation=conversation, after=params.get("after"), before=params.get("before"), limit=params["limit"]
    )
    return Response({
        "conversation": conversation_shape(conversation),
        "items": [message_shape(m) for m in found.items],
        "nextBefore": found.next_before,
        "nextAfter": found.next_after,
    })


def _send(view: ApiView, conversation: Conversation) -> Response:
    text = view.body(serializers.MessageInput).validated_data["text"]
    if conversation.kind != Conversation.Kind.CHAT:
        raise ToolError(
            "unsupported",
            f"A {conversation.kind}'s messages are read-only here; write in {conversation.agent.name}'s chat, "
            "which passes work on to its threads.",
        )
    message = agent_services.owner_message_send(org=view.org, agent=conversation.agent, text=text)
    conversation.refresh_from_db()
    return Response(
        {"conversation": conversation_shape(conversation), "message": message_shape(message)},
        status=status.HTTP_201_CREATED,
    )


class AgentChat(ApiView):
    @extend_schema(
        operation_id="agents_chat_read", tags=["conversations"],
        summary="An agent's chat with the owner, a page of its messages by seq",
        parameters=[serializers.MessagePageQuery], responses={200: doc.MessagePage, **doc.errors(404)},
    )
    def get(self, request, agent_id):
        agent = selectors.agent_get(org=self.org, agent_id=agent_id)
        return _message_page(self, agent_services.chat_for(agent=agent))

    @extend_schema(
        operation_id="agents_chat_send", tags=["conversations"],
        summary="Write to an agent in its chat: the agent takes it as a piece of work and replies in the chat",
        request=serializers.MessageInput, responses={201: doc.MessageSent, **doc.errors(404)},
    )
    def post(self, request, agent_id):
        agent = selectors.agent_get(org=self.org, agent_id=agent_id)
        return _send(self, agent_services.chat_for(agent=agent))


class ConversationList(ApiView):
    @extend_schema(
        operation_id="conversations_list", tags=["conversations"],
        summary="Chats and threads, the one active last first",
        parameters=[serializers.ConversationListQuery], responses={200: doc.ConversationPage, **doc.errors(404)},
    )
    def get(self, request):
        params = self.query(serializers.ConversationListQuery)
        agent = selectors.agent_get(org=self.org, agent_id=params["agent"]) if params.get("agent") else None
        rows, next_offset = selectors.conversation_page(
            org=self.org, agent=agent, kind=params.get("kind"), offset=params["offset"]
        )
        return Response(_page([conversation_shape(c) for c in rows], next_offset))


class ConversationDetail(ApiView):
    @extend_schema(
        operation_id="conversations_read", tags=["conversations"], summary="A chat or thread",
        responses={200: doc.Conversation, **doc.errors(404)},
    )
    def get(self, request, conversation_id):
        return Response(conversation_shape(selectors.conversation_get(org=self.org, conversation_id=conversation_id)))


class ConversationMessages(ApiView):
    @extend_schema(
        operation_id="conversations_messages", tags=["conversations"],
        summary="A page of a chat's or thread's messages by seq",
        parameters=[serializers.MessagePageQuery], responses={200: doc.MessagePage, **doc.errors(404)},
    )
    def get(self, request, conversation_id):
        return _message_page(self, selectors.conversation_get(org=self.org, conversation_id=conversation_id))

    @extend_schema(
        operation_id="conversations_send", tags=["conversations"],
        summary="Write in a chat (a thread's messages are read-only: 422 unsupported)",
        request=serializers.MessageInput, responses={201: doc.MessageSent, **doc.errors(404, 422)},
    )
    def post(self, request, conversation_id):
        return _send(self, selectors.conversation_get(org=self.org, conversation_id=conversation_id))


class ConversationTryAgain(ApiView):
    @extend_schema(
        operation_id="conversations_try_again", tags=["home"],
        summary="Try again: run once more the turn that couldn't finish (409 changed when nothing waits for it)",
        request=None, responses={202: doc.TryAgain, **doc.errors(404, 409)},
    )
    def post(self, request, conversation_id):
        conversation = selectors.conversation_get(org=self.org, conversation_id=conversation_id)
        # As on Home, only work that couldn't finish is tried again: a turn costs the owner money.
        if not selectors.waits_to_try_again(org=self.org, conversation=conversation):
            raise ToolError(
                "changed",
                "Nothing in that conversation waits to be tried again: it was tried again already, or nothing failed.",
            )
        agent_services.conversation_try_again(org=self.org, conversation_id=conversation.id)
        conversation.refresh_from_db()
        return Response({"conversation": conversation_shape(conversation)}, status=status.HTTP_202_ACCEPTED)


# --- contacts ---------------------------------------------------------------------------------------------


def _contact_read(org, contact_id) -> dict:
    contact = contact_selectors.contact_get(org=org, contact_id=contact_id)
    return contact_read_shape(contact, contact_selectors.contact_log(contact=contact))


class ContactList(ApiView):
    @extend_schema(
        operation_id="contacts_list", tags=["contacts"],
        summary="Contacts, by name, with the filters contacts.list takes",
        parameters=[serializers.ContactListQuery], responses={200: doc.ContactList, **doc.errors(404)},
    )
    def get(self, request):
        params = self.query(serializers.ContactListQuery)
        contacts, total = contact_selectors.contact_list(
            org=self.org, label=params.get("label"), company=params.get("company"), query=params.get("query"),
            open_kind=params.get("open"), quiet_days=params.get("quietDays"), offset=params["offset"],
        )
        return Response({
            "items": [contact_compact(c) for c in contacts],
            "nextOffset": _offset_page(params["offset"], len(contacts), total),
            "total": total,
        })

    @extend_schema(
        operation_id="contacts_create", tags=["contacts"],
        summary="Add a contact (an address already on a contact is bad_input, naming them)",
        request=serializers.ContactCreateInput, responses={201: doc.ContactRead, **doc.errors(404, 409)},
    )
    def post(self, request):
        data = self.body(serializers.ContactCreateInput).validated_data
        try:
            contact = contact_services.contact_create(
                org=self.org, actor=self.actor, name=data["name"], emails=data["emails"], phone=data.get("phone"),
                job_title=data.get("jobTitle"), labels=data["labels"], company_ids=data["companyIds"],
                fields=data["fields"],
            )
        except contact_services.ContactExists as exists:
            raise ToolError(
                "bad_input",
                f"emails: {exists.email} is already on {exists.contact.name} (contact {exists.contact.id}); nothing "
                "was added. Read or update them.",
            ) from exists
        return Response(_contact_read(self.org, contact.id), status=status.HTTP_201_CREATED)


class ContactDetail(ApiView):
    @extend_schema(
        operation_id="contacts_read", tags=["contacts"],
        summary="A contact: fields, Context, open items, companies, projects and the newest 20 log entries",
        responses={200: doc.ContactRead, **doc.errors(404)},
    )
    def get(self, request, contact_id):
        return Response(_contact_read(self.org, contact_id))

    @extend_schema(
        operation_id="contacts_update", tags=["contacts"],
        summary="Change a contact's fields and labels; each change goes on its log",
        request=serializers.ContactUpdateInput, responses={200: doc.ContactRead, **doc.errors(404, 409)},
    )
    def patch(self, request, contact_id):
        changes = self.body(serializers.ContactUpdateInput).changes()
        contact = contact_selectors.contact_get(org=self.org, contact_id=contact_id)
        contact_services.contact_update(org=self.org, actor=self.actor, contact=contact, changes=changes)
        return Response(_contact_read(self.org, contact_id))


class ContactNotes(ApiView):
    @extend_schema(
        operation_id="contacts_note", tags=["contacts"], summary="Add a dated note to a contact's log",
        request=serializers.NoteInput, responses={201: doc.LogEntry, **doc.errors(404)},
    )
    def post(self, request, contact_id):
        text = self.body(serializers.NoteInput).validated_data["text"]
        contact = contact_selectors.contact_get_plain(org=self.org, contact_id=contact_id)
        entry = contact_services.contact_note(org=self.org, actor=self.actor, contact=contact, text=text)
        return Response(log_entry_shape(entry), status=status.HTTP_201_CREATED)


# --- companies --------------------------------------------------------------------------------------------


def _company_record(org, company_id) -> dict:
    return company_record(company_selectors.company_for_record(org=org, company_id=company_id))


class CompanyList(ApiView):
    @extend_schema(
        operation_id="companies_list", tags=["companies"], summary="Companies, by name, with what's open",
        parameters=[serializers.CompanyListQuery], responses={200: doc.CompanyList, **doc.errors()},
    )
    def get(self, request):
        params = self.query(serializers.CompanyListQuery)
        rows, total = company_selectors.company_list(
            org=self.org, label=params.get("label"), query=params.get("query"), open_kind=params.get("open"),
            quiet_days=params.get("quietDays"), handled_by=params.get("handledBy"), offset=params["offset"],
        )
        return Response({
            "items": [company_row(c) for c in rows],
            "nextOffset": _offset_page(params["offset"], len(rows), total),
            "total": total,
        })

    @extend_schema(
        operation_id="companies_create", tags=["companies"],
        summary="Add a company with its people (a company of that name or domain already is bad_input)",
        request=serializers.CompanyCreateInput, responses={201: doc.CompanyRecord, **doc.errors(404)},
    )
    def post(self, request):
        data = self.body(serializers.CompanyCreateInput).validated_data
        try:
            company = company_services.company_create(
                org=self.org, actor=self.actor, name=data["name"], website=data.get("website"),
                domains=data["domains"], labels=data["labels"], handler=data.get("handler"),
                people=[(str(p["contactId"]), p.get("role")) for p in data["people"]],
            )
        except company_services.CompanyExists as exists:
            raise ToolError(
                "bad_input",
                f"{exists.company.name} (company {exists.company.id}) is in Companies already, with {exists.what}; "
                "nothing was added. Read or update it.",
            ) from exists
        return Response(_company_record(self.org, company.id), status=status.HTTP_201_CREATED)


class CompanyDetail(ApiView):
    @extend_schema(
        operation_id="companies_read", tags=["companies"],
        summary="A company: Context, details, About, people with roles, open items, the newest 20 conversations",
        responses={200: doc.CompanyRead, **doc.errors(404)},
    )
    def get(self, request, company_id):
        return Response(company_read_shape(*company_selectors.company_read(org=self.org, company_id=company_id)))

    @extend_schema(
        operation_id="companies_update", tags=["companies"],
        summary="Change a company's name, domains, labels, handler or details; the change goes on its log",
        request=serializers.CompanyUpdateInput, responses={200: doc.CompanyRecord, **doc.errors(404)},
    )
    def patch(self, request, company_id):
        checked = self.body(serializers.CompanyUpdateInput)
        company = company_selectors.company_get(org=self.org, company_id=company_id)
        company_services.company_update(
            org=self.org, actor=self.actor, company=company, why=checked.validated_data["why"], **checked.changes()
        )
        return Response(_company_record(self.org, company.id))


class CompanyTimeline(ApiView):
    @extend_schema(
        operation_id="companies_timeline", tags=["companies"],
        summary="A company's conversations, newest first; before is the last item's at",
        parameters=[serializers.TimelineQuery], responses={200: doc.TimelinePage, **doc.errors(404)},
    )
    def get(self, request, company_id):
        params = self.query(serializers.TimelineQuery)
        found = company_selectors.timeline_page(
            org=self.org, company_id=company_id, kind=params.get("kind"), contact_id=params.get("contactId"),
            query=params.get("query"), before=params.get("before"),
        )
        items = found["items"]
        return Response({
            "items": [timeline_entry_shape(e) for e in items],
            "total": found["total"],
            "counts": found["counts"],
            "nextBefore": iso(items[-1].at) if found["more"] else None,
        })


# --- projects ---------------------------------------------------------------------------------------------


class ProjectList(ApiView):
    @extend_schema(
        operation_id="projects_list", tags=["projects"], summary="Projects, the one changed last first",
        parameters=[serializers.OffsetQuery], responses={200: doc.ProjectPage, **doc.errors()},
    )
    def get(self, request):
        params = self.query(serializers.OffsetQuery)
        projects, next_offset = doc_selectors.project_page(org=self.org, offset=params["offset"])
        return Response(_page([project_shape(p) for p in projects], next_offset))

    @extend_schema(
        operation_id="projects_create", tags=["projects"], summary="Make a project",
        request=serializers.ProjectCreateInput, responses={201: doc.Project, **doc.errors()},
    )
    def post(self, request):
        data = self.body(serializers.ProjectCreateInput).validated_data
        project = doc_services.project_create(
            org=self.org, actor=self.actor, name=data["name"], description=data["description"]
        )
        return Response(project_shape(project), status=status.HTTP_201_CREATED)


class ProjectDetail(ApiView):
    @extend_schema(
        operation_id="projects_read", tags=["projects"], summary="A project",
        responses={200: doc.Project, **doc.errors(404)},
    )
    def get(self, request, project_id):
        return Response(project_shape(doc_selectors.project_get(org=self.org, project_id=project_id)))

    @extend_schema(
        operation_id="projects_update", tags=["projects"], summary="Rename a project or change its description",
        request=serializers.ProjectUpdateInput, responses={200: doc.Project, **doc.errors(404)},
    )
    def patch(self, request, project_id):
        data = self.body(serializers.ProjectUpdateInput).validated_data
        project = doc_selectors.project_get(org=self.org, project_id=project_id)
        project = doc_services.project_update(
            org=self.org, actor=self.actor, project=project, name=data.get("name", project.name),
            description=data.get("description", project.description),
        )
        return Response(project_shape(project))


# --- docs -------------------------------------------------------------------------------------------------


class DocList(ApiView):
    @extend_schema(
        operation_id="docs_list", tags=["docs"], summary="Docs, the one written last first",
        parameters=[serializers.DocListQuery], responses={200: doc.DocPage, **doc.errors(404)},
    )
    def get(self, request):
        params = self.query(serializers.DocListQuery)
        project = (
            doc_selectors.project_get(org=self.org, project_id=params["projectId"])
            if params.get("projectId") else None
        )
        docs, next_offset = doc_selectors.doc_page(
            org=self.org, project=project, title=params.get("title"), offset=params["offset"]
        )
        return Response(_page([doc_list_item(d) for d in docs], next_offset))


class DocDetail(ApiView):
    @extend_schema(
        operation_id="docs_read", tags=["docs"],
        summary="A doc: its text (MDX), the brief, what to read first, and the owner's notes no one answered yet",
        responses={200: doc.DocRead, **doc.errors(404)},
    )
    def get(self, request, doc_id):
        found = doc_selectors.doc_get(org=self.org, doc_id=doc_id)
        return Response(doc_read_shape(found, doc_selectors.doc_open_notes(doc=found)))


class DocNotes(ApiView):
    @extend_schema(
        operation_id="docs_notes", tags=["docs"], summary="The owner's notes on a doc, each with its answers",
        responses={200: doc.DocNoteList, **doc.errors(404)},
    )
    def get(self, request, doc_id):
        found = doc_selectors.doc_get(org=self.org, doc_id=doc_id)
        return Response({"items": [doc_note_shape(n) for n in doc_selectors.doc_notes_with_answers(doc=found)]})

    @extend_schema(
        operation_id="docs_note_add", tags=["docs"],
        summary="Leave a note on a doc, on some of its words or the whole; the agent answers it",
        request=serializers.DocNoteInput, responses={201: doc.DocNote, **doc.errors(404)},
    )
    def post(self, request, doc_id):
        data = self.body(serializers.DocNoteInput).validated_data
        found = doc_selectors.doc_get(org=self.org, doc_id=doc_id)
        note = doc_services.doc_note_add(org=self.org, actor=self.actor, doc=found, on=data["on"], note=data["note"])
        return Response(doc_note_shape(note), status=status.HTTP_201_CREATED)


# --- Home -------------------------------------------------------------------------------------------------


def _work_page(org, offset: int) -> dict:
    rows, next_offset = selectors.work_page(org=org, offset=offset)
    return _page([work_shape(w) for w in rows], next_offset)


def _change_page(org, before) -> dict:
    found = core_selectors.home_work_lines(org=org, before=before)
    return {
        "items": [change_line_shape(c, owner_id=org.owner_id) for c in found.lines],
        "nextBefore": iso_exact(found.next_before),
    }


def _cards(org) -> list[dict]:
    return [card_shape(c) for c in core_selectors.home_cards(org=org)]


class HomeView(ApiView):
    @extend_schema(
        operation_id="home_read", tags=["home"],
        summary="Home: the cards waiting for the owner, the newest work, and the newest Your-work lines",
        responses={200: doc.Home, **doc.errors()},
    )
    def get(self, request):
        org = self.org
        return Response({"cards": _cards(org), "work": _work_page(org, 0), "changes": _change_page(org, None)})


class HomeWork(ApiView):
    @extend_schema(
        operation_id="home_work", tags=["home"],
        summary="Each piece of work an agent is doing or did, newest first, with its latest reply",
        parameters=[serializers.OffsetQuery], responses={200: doc.WorkPage, **doc.errors()},
    )
    def get(self, request):
        return Response(_work_page(self.org, self.query(serializers.OffsetQuery)["offset"]))


class HomeChanges(ApiView):
    @extend_schema(
        operation_id="home_changes", tags=["home"],
        summary="Your work: every change agents made, a sentence each, newest first, with Undo where it has one",
        parameters=[serializers.ChangePageQuery], responses={200: doc.ChangePage, **doc.errors()},
    )
    def get(self, request):
        return Response(_change_page(self.org, self.query(serializers.ChangePageQuery).get("before")))


class HomeCards(ApiView):
    @extend_schema(
        operation_id="home_cards", tags=["home"], summary="Waiting for you: the open cards, newest first",
        responses={200: doc.CardList, **doc.errors()},
    )
    def get(self, request):
        return Response({"items": _cards(self.org)})


class ChangeUndo(ApiView):
    @extend_schema(
        operation_id="changes_undo", tags=["home"],
        summary="Undo a change: restores exactly what was there, or 409 changed when it moved on since",
        request=None, responses={200: doc.Undone, **doc.errors(404, 409, 422)},
    )
    def post(self, request, change_id):
        org = self.org
        undo = home_services.change_undo(org=org, change_id=change_id, actor=self.actor)
        undone = selectors.change_get(org=org, change_id=undo.undoes_id)
        return Response({
            "undone": change_line_shape(undone, owner_id=org.owner_id),
            "undo": change_line_shape(undo, owner_id=org.owner_id),
        })


class CardDismiss(ApiView):
    @extend_schema(
        operation_id="cards_dismiss", tags=["home"], summary="Dismiss a card from Waiting for you",
        request=None, responses={200: doc.Card, **doc.errors(404)},
    )
    def post(self, request, card_id):
        return Response(card_shape(home_services.card_resolve(org=self.org, card_id=card_id)))


# --- anything else under /api/ ----------------------------------------------------------------------------


@extend_schema(exclude=True)
class NoRoute(ApiView):
    """Under /api/, a path that names no route is `not_found` in the one shape, not Django's HTML page."""

    def _answer(self, request, path=""):
        message = f"No API route at {request.path}."
        if not request.path.endswith("/") and _is_route(request.path + "/"):
            message += f" Routes end with a slash: {request.path}/"
        return error_response("not_found", message)

    get = post = put = patch = delete = _answer


def _is_route(path: str) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return getattr(match.func, "view_class", None) is not NoRoute



class SchemaView(SpectacularAPIView):
    """The OpenAPI schema, open to anyone: it describes the routes, and holds nothing of any workspace."""

    permission_classes: list = []
    authentication_classes: list = []

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
