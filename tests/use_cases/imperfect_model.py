"""An imperfect model for the smoke run: an OpenAI-compatible server on 127.0.0.1 that plays the seven use cases
the way a real model sometimes does them, with the mistakes real models make: arguments as a JSON string of the
object, a trailing comma, a body cut off, a tool's name with `functions.` before it or misspelt, an input that
isn't one, text and a call in one reply, several calls in one reply, an empty reply, and a reply that only says what
it will do. Each mistake is followed by what the model would send once told what was wrong, so the run reaches the
spec's outcome only if Roadstar's answers to the mistakes let it.

Its answers are queued by who is asked (the agent, and the thread's title or its chat), as tests/use_cases/
staff_script.py's are; an answer may be a function of the request, to use what a tool returned. A turn nothing is
queued for gets a one-line reply, and is noted (`unscripted`).
"""

from __future__ import annotations

import datetime
import itertools
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from core.owner_zone import zone_named

_ids = itertools.count(1)


def tc(name: str, args: dict | None = None, *, raw: str | None = None) -> dict:
    """A tool call as a provider sends it: the arguments as the string the model wrote."""
    return {"id": f"call_{next(_ids)}", "type": "function",
            "function": {"name": name, "arguments": raw if raw is not None else json.dumps(args or {})}}


def reply(text: str | None = None, *calls: dict) -> dict:
    message: dict = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def as_string(args: dict) -> str:
    return json.dumps(json.dumps(args))  # the object, written as a JSON string


def trailing_comma(args: dict) -> str:
    return json.dumps(args)[:-1] + ",}"


def cut_off(args: dict) -> str:
    return json.dumps(args)[:40]


def results(request) -> list:
    out = []
    for m in request["messages"]:
        if m["role"] == "tool":
            try:
                out.append(json.loads(m["content"]))
            except (TypeError, ValueError):
                out.append(m["content"])
    return out


def last_with(request, key: str):
    """The latest tool result holding `key` (a dict), such as the search whose `hits` a step uses."""
    for result in reversed(results(request)):
        if isinstance(result, dict) and key in result:
            return result
    raise AssertionError(f"no tool result with {key!r} yet")


class ImperfectModel:
    def __init__(self):
        self.queues: dict[tuple[str, str], list] = {}
        self.requests: list[dict] = []
        self.unscripted: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                request = json.loads(raw)
                with model.lock:
                    model.requests.append(request)
                    message = model.answer(request)
                body = json.dumps({
                    "id": "chatcmpl-imperfect", "object": "chat.completion", "created": 1767312000,
                    "model": request.get("model", "imperfect"),
                    "usage": {"prompt_tokens": len(raw) // 4, "completion_tokens": len(json.dumps(message)) // 4,
                              "total_tokens": len(raw) // 4 + len(json.dumps(message)) // 4},
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def on(self, agent: str, where: str, *answers) -> ImperfectModel:
        self.queues.setdefault((agent, where), []).extend(answers)
        return self

    def answer(self, request: dict) -> dict:
        schema = (request.get("response_format") or {}).get("json_schema", {})
        if schema.get("name") == "routine_matches":
            # The ask matching: every routine offered is what the enquiry is for (there is one).
            prompt = request["messages"][1]["content"]
            return reply(json.dumps({"matches": [int(n) for n in re.findall(r"^(\d+): ", prompt, re.M)]}))
        system = request["messages"][0]["content"]
        if not system.startswith("You are "):
            return reply("Earlier messages, summed up.")  # memory's summaries
        agent = system[len("You are "):].split(",", 1)[0]
        where = system.split("This thread: ", 1)[1].split(".\n", 1)[0] if "This thread: " in system else "chat"
        last = next((m.get("content") or "" for m in reversed(request["messages"]) if m["role"] == "user"), "")
        if where == "chat" and "[Answer from " in last:
            return reply("Noted.")  # a thread's answer coming back to the chat: nothing more to do there
        queue = self.queues.get((agent, where))
        if not queue:
            self.unscripted.append((agent, where))
            return reply("Noted.")
        item = queue.pop(0)
        return item(request) if callable(item) else item


# --- the seven use cases, as an imperfect model plays them ---------------------------------------------------------

MAKE = {
    "name": "Proposal writer", "job": "Prices and writes proposals and quotes from the rate card",
    "owns": "Every proposal and quote Fernhill Studio sends: scope, price and timeline.",
    "good": "Priced from the current rate card, in Sam's voice, sent to Sam the same day it's asked for.",
    "works": "When a client asks for a price or another agent hands one over.",
    "asksFirst": "Anything off the rate card, discounts, and before any proposal goes to a client.",
    "reportsTo": "Client desk", "department": "Clients",
}
HAND = {"agent": "Proposal writer",
        "task": "Write the Ortiz Bakery packaging redesign proposal for Rosa Ortiz, due Friday.",
        "notes": "Sam's first proposal for you. Rosa wants it by Friday."}
FILLED = {
    "{{CLIENT}}": "Ortiz Bakery", "{{CONTACT}}": "Rosa Ortiz",
    "{{SCOPE}}": "New packaging for six bread and pastry lines: box, bag and label designs, and print-ready files.",
    "{{PRICE}}": "$6,200", "{{DATE}}": "Friday",
}
COPY_NAME = "Ortiz Bakery: packaging redesign proposal"
QUOTE = ("Hi Dana,\n\nThanks for thinking of us. For a new logo with a one-page brand guide, and signage for both "
         "clinics, the price is $8,400, ready five weeks after you sign.\n\nSam")
CHASE = ("Hi Rosa,\n\nA quick note that invoice {number} for ${total:,.0f} was due on {due}. You can see and pay it "
         "here: {url}\n\nThanks so much,\nSam")
NY = zone_named("America/New_York")


def _people(request) -> list[dict]:
    """The people on the sent mail found, as contacts.add_many takes them, but those Contacts has."""
    hits = last_with(request, "hits")["hits"]
    people, seen = [], set()
    for hit in hits:
        for someone in hit.get("people") or []:
            found = re.search(r"([^<]*)<([^>]+)>", someone)
            name, email = (found.group(1).strip(), found.group(2)) if found else ("", someone.strip())
            if email in seen or email.endswith("@fernhill.test"):
                continue
            seen.add(email)
            people.append({"name": name or email.split("@")[0].title(), "emails": [email], "labels": ["Client"]})
    return people


def _ortiz(request) -> dict:
    """Ortiz Bakery's overdue invoice (the one the spec's Monday chases), from books.invoices' result."""
    invoices = last_with(request, "invoices")["invoices"]
    return next((i for i in invoices if i.get("customer") == "Ortiz Bakery"), invoices[0])


def _free_morning(request) -> tuple[str, str]:
    """The first weekday morning hour of next week no meeting overlaps, in New York time."""
    meetings = [m for m in results(request) if isinstance(m, list)][-1]
    busy = [(datetime.datetime.fromisoformat(m["start"]), datetime.datetime.fromisoformat(m["end"]))
            for m in meetings]
    today = datetime.datetime.now(NY).date()
    monday = today + datetime.timedelta(days=7 - today.weekday())
    for day in range(5):
        for hour in (9, 10, 11):
            start = datetime.datetime.combine(monday + datetime.timedelta(days=day), datetime.time(hour), NY)
            end = start + datetime.timedelta(hours=1)
            if not any(s < end and e > start for s, e in busy):
                return start.isoformat(), end.isoformat()
    raise AssertionError("no free morning next week")


def _next_week(request) -> dict:
    today = datetime.datetime.now(NY).date()
    monday = today + datetime.timedelta(days=7 - today.weekday())
    return {"after": f"{monday}T00:00:00-05:00", "before": f"{monday + datetime.timedelta(days=5)}T00:00:00-05:00"}


def _october_totals(request) -> list[list]:
    rows = last_with(request, "values")["values"]
    head = [str(h) for h in rows[0]]
    date_at, client_at, hours_at = head.index("Date"), head.index("Client"), head.index("Hours")
    totals: dict[str, float] = {}
    for row in rows[1:]:
        if len(row) > max(date_at, client_at, hours_at) and str(row[date_at]).startswith("2026-10"):
            totals[str(row[client_at])] = totals.get(str(row[client_at]), 0) + float(row[hours_at])
    return [["Client", "Hours"], *([c, h] for c, h in sorted(totals.items(), key=lambda t: -t[1]))]


def script_seven(model: ImperfectModel) -> ImperfectModel:
    """Queue the seven use cases' answers, mistakes and all."""
    # 1. Making an agent: an empty reply; text and a call whose name has functions. before it and whose arguments
    #    are a JSON string; a hand-off with a trailing comma. Proposal writer's chat first only says what it will do.
    model.on("Roadstar", "chat",
             reply(""),
             reply("I'll make a Proposal writer for you.", tc("functions.make_agent", raw=as_string(MAKE))),
             reply(None, tc("hand_off", raw=trailing_comma(HAND))),
             reply("I've made Proposal writer, under Client desk, and handed it the Ortiz Bakery proposal for "
                   "Friday."))
    model.on("Proposal writer", "chat",
             reply("I'll start on it now."),
             reply(None, tc("start_thread", {"title": "Ortiz Bakery", "task": HAND["task"]})),
             reply("Started a thread on the Ortiz Bakery proposal."),
             # 2. A proposal from the template (Sam asks Proposal writer directly).
             reply(None, tc("start_thread", {"title": "Ortiz Bakery proposal", "task": (
                 "Write the Ortiz Bakery packaging redesign proposal for Rosa Ortiz from the template, due "
                 "Friday.")})),
             reply("Started a thread on the Ortiz Bakery proposal."))
    model.on("Proposal writer", "Ortiz Bakery",
             reply("The Ortiz Bakery proposal is noted for Friday, from the template in Drive."))
    # 2. … its thread: a misspelt tool name, then several calls in one reply.
    model.on("Proposal writer", "Ortiz Bakery proposal",
             reply(None, tc("use_tool", {"name": "file.search", "input": {"query": "proposal template"}})),
             reply(None, tc("use_tool", {"name": "files.search", "input": {"query": "proposal template"}})),
             lambda r: reply(None, tc("use_tool", {"name": "files.copy", "input": {
                 "id": last_with(r, "hits")["hits"][0]["id"], "name": COPY_NAME}})),
             lambda r: reply("Filling in the copy.", *[
                 tc("use_tool", {"name": "files.replace_text", "input": {
                     "id": last_with(r, "id")["id"], "find": find, "replace": replace}})
                 for find, replace in FILLED.items()]),
             reply("The Ortiz Bakery packaging proposal is ready for you in Drive: six product lines, $6,200. "
                   "Shall I send it to Rosa?"))
    # 3. Filling Contacts from mail: an input that isn't one, then a body cut off.
    model.on("Client desk", "chat",
             reply(None, tc("start_thread", {"title": "Contacts from mail", "task": (
                 "Fill Contacts with the people Sam writes to, from sent mail. Real people only.")})),
             reply("Started a thread to fill Contacts from your sent mail."),
             # 5. Booking a kickoff call
             reply(None, tc("start_thread", {"title": "Juniper Dental", "task": (
                 "Book a one-hour kickoff call with Dana Whitfield next week; mornings are best for Sam.")})),
             reply("Sent to the Juniper Dental thread."),
             # 6. A new client enquiry: the routine, from Sam's words.
             reply(None, tc("triggers", {"action": "add", "name": "New client enquiries",
                                         "when": {"ask": "a new client asking about a project or a quote"},
                                         "note": "Answer the same day. Quotes come from the rate card in Drive, "
                                                 "and Sam sees every quote before it goes out."})),
             reply("New clients get an answer the same day, and you'll see every quote first."))
    model.on("Client desk", "Contacts from mail",
             reply(None, tc("use_tool", {"name": "mail.search",
                                         "input": {"query": "in:sent", "limit": 20, "maxResults": 20}})),
             reply(None, tc("use_tool", {"name": "mail.search", "input": {"query": "in:sent", "limit": 20}})),
             lambda r: reply(None, tc("use_tool", raw=cut_off(
                 {"name": "contacts.add_many", "input": {"people": _people(r)}}))),
             lambda r: reply(None, tc("use_tool", {"name": "contacts.add_many", "input": {"people": _people(r)}})),
             reply("Added the people you write to from your sent mail to Contacts."))
    # 4. A month of hours: a reply that only says what it will do, in the thread.
    model.on("Bookkeeper", "chat",
             reply(None, tc("start_thread", {"title": "October hours", "task": (
                 "Total October's hours per client from the timesheet, for invoicing.")})),
             reply("Started a thread on October hours."),
             # 7. Chasing overdue invoices: the routine.
             reply(None, tc("triggers", {"action": "add", "name": "Overdue invoices", "when": {"at": "0 9 * * 1"},
                                         "note": "Chase invoices more than 7 days overdue. Friendly the first "
                                                 "time. Over $5,000, ask Sam first."})),
             reply("Every Monday at 9 I'll chase what's more than a week overdue, and ask you over $5,000."))
    model.on("Bookkeeper", "October hours",
             reply("Let me find the timesheet."),
             reply(None, tc("use_tool", {"name": "files.search", "input": {"query": "Timesheet 2026"}})),
             lambda r: reply(None, tc("use_tool", {"name": "files.sheet_rows", "input": {
                 "id": last_with(r, "hits")["hits"][0]["id"], "range": "Log!A1:H500"}})),
             lambda r: reply(None, tc("use_tool", {"name": "files.create_sheet", "input": {
                 "name": "October 2026 hours by client", "rows": _october_totals(r)}})),
             reply("October's hours per client are totalled in a new Sheet in Drive."))
    # 5. … the kickoff: the input as a JSON string inside use_tool.
    model.on("Client desk", "Juniper Dental",
             lambda r: reply(None, tc("use_tool", {"name": "calendar.list", "input": json.dumps(_next_week(r))})),
             lambda r: reply(None, tc("use_tool", {"name": "calendar.hold", "input": {
                 "title": "Juniper Dental kickoff (held)", "start": _free_morning(r)[0], "end": _free_morning(r)[1],
                 "note": "Offered to Dana Whitfield."}})),
             reply(None, tc("use_tool", {"name": "mail.send", "input": {
                 "to": ["dana@juniperdental.test"], "subject": "Kickoff for the Juniper Dental rebrand",
                 "text": "Hi Dana,\n\nThanks for signing! Could we do a one-hour kickoff next week in the morning? "
                         "I've held the first free hour for us.\n\nSam"}})),
             reply(None, tc("use_tool", {"name": "contacts.find", "input": {"email": "dana@juniperdental.test"}})),
             lambda r: reply(None, tc("use_tool", {"name": "contacts.follow_up", "input": {
                 "contactId": last_with(r, "id")["id"], "text": "Kickoff: did Dana pick the time?",
                 "at": (datetime.datetime.now(NY) + datetime.timedelta(days=3)).replace(microsecond=0).isoformat()}})),
             reply("I've held an hour next week for the Juniper kickoff, offered it to Dana once you say yes, and "
                   "set a follow-up."))
    # 6. … Dana's enquiry, in the routine's thread.
    model.on("Client desk", "New client enquiries",
             reply(None, tc("use_tool", {"name": "mail.search",
                                         "input": {"query": "from:dana@juniperdental.test", "limit": 5}})),
             reply(None, tc("use_tool", {"name": "mail.send", "input": {
                 "to": ["dana@juniperdental.test"], "subject": "Re: Rebrand for our second clinic",
                 "text": QUOTE}})),
             reply("The quote to Dana, $8,400, waits for your yes on Home."))
    # 7. … Monday at 9, in the routine's thread.
    model.on("Bookkeeper", "Overdue invoices",
             reply(None, tc("use_tool", {"name": "books.invoices", "input": {"status": "overdue"}})),
             lambda r: reply(None, tc("use_tool", {"name": "mail.send", "input": {
                 "to": [_ortiz(r)["email"]], "subject": f"Invoice {_ortiz(r)['number']} from Fernhill Studio",
                 "text": CHASE.format(**_ortiz(r))}})),
             reply(None, tc("use_tool", {"name": "contacts.find", "input": {"email": "rosa@ortizbakery.test"}})),
             lambda r: reply(None, tc("use_tool", {"name": "contacts.follow_up", "input": {
                 "contactId": last_with(r, "id")["id"], "text": "Invoice paid? If not, a firmer note.",
                 "at": (datetime.datetime.now(NY) + datetime.timedelta(days=7)).replace(microsecond=0).isoformat()}})),
             reply("Chased Ortiz Bakery's overdue invoice with a friendly note, once you say yes on Home; I'll "
                   "check again next Monday."))
    return model
