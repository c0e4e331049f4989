"""`manage.py seed_demo`: the example workspace of the spec, Fernhill Studio, Sam Rivera's design studio.

Every record is looked up by its natural key first (the user name, the workspace's owner, an agent's or a
company's or a project's name, a contact's address, a doc's or a timeline entry's title), so running it again
changes nothing, and nothing the owner changed since is overwritten. Records are written through the apps'
services, as agents' tools write them, so each has its own log; only the user, the workspace and Roadstar
itself, which no service makes, are plain creates. Nothing is put on Home: no agent did any of this.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import NotRequired, TypedDict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from agents import services as agent_services
from agents.models import Agent
from companies import services as company_services
from contacts import selectors as contact_selectors
from contacts import services as contact_services
from core.actors import Actor
from core.models import Organization
from core.owner_zone import owner_zone
from docs import services as doc_services
from integrations.files.example import seed_files as files_example
from integrations.local.mailbox import Incoming, message_store
from integrations.local.models_books import LocalInvoice
from integrations.local.models_calendar import LocalEvent
from integrations.local.models_mail import LocalMailMessage
from integrations.models import Connection
from integrations.providers.local_books import InvoiceIn, LineIn, invoice_put
from integrations.providers.local_calendar import event_put
from integrations.services import connection_create_local
from records.models import Company, Doc, Project, TimelineEntry

# --- The facts, from the spec's examples ------------------------------------------------------------------

USERNAME = "sam"
DEFAULT_PASSWORD = "fernhill"
OWNER = {"first_name": "Sam", "last_name": "Rivera", "email": "sam@fernhill.test"}

WORKSPACE = {
    "name": "Fernhill Studio",
    "owner_name": "Sam Rivera",
    "owner_email": "sam@fernhill.test",
    "time_zone": "America/New_York",
    "domains": ["fernhill.test"],
    "about": (
        "Fernhill Studio is Sam Rivera's design studio: logos, brand guides, signage and packaging for small "
        "businesses. Clients include Juniper Dental, Ortiz Bakery and Harbor Florists; Ruiz Print Co. prints for "
        "us. Quotes and proposals are priced from the 2026 rate card in Drive, and Sam sees every quote before it "
        "goes out. Proposals go to Sam as Google Docs. Invoices are in QuickBooks; anything more than a week "
        "overdue is chased on Mondays, and anything over $5,000 is checked with Sam first. Sam works New York "
        "time and prefers mornings for calls."
    ),
    "payment_details": [
        "IBAN GB33 BUKB 2020 1555 5555 55",
        "Routing 021000021, account 7720193844 (Fernhill Studio LLC)",
    ],
}

ROADSTAR = {
    "name": "Roadstar",
    "job": "Sam's chief of staff: answers Sam, starts work and hands it to the agent whose job it is",
    "owns": "The About, the agents and the chart, and work no other agent's job covers.",
    "good": "Work reaches the right agent the first time, with Sam's words; agents made for lasting jobs only.",
    "works": "When Sam writes, and each morning for the summary.",
    "asks_first": "Before making, changing or pausing an agent Sam didn't ask for.",
}

# Each agent: its job (spec/index.md) and job description, written from the use cases. reports_to names an agent.
AGENTS = [
    {
        "name": "Client desk",
        "job": "Answers new and current clients, and keeps Contacts and Companies up to date",
        "owns": "Client mail and enquiries, and Contacts and Companies: who's who, their Context, and every "
        "conversation on a company's timeline.",
        "good": "New clients answered the same day, in Sam's voice; every client and conversation recorded; "
        "nothing left waiting on us.",
        "works": "As mail arrives, and when another agent hands over a client question.",
        "asks_first": "Before any quote or price goes to a client, and before writing to anyone marked Always ask.",
        "reports_to": "Roadstar",
        "department": "Clients",
    },
    {
        "name": "Proposal writer",
        "job": "Prices and writes proposals and quotes from the rate card",
        "owns": "Every proposal and quote Fernhill Studio sends: scope, price and timeline.",
        "good": "Priced from the current rate card, in Sam's voice, one page where it can be, sent to Sam the "
        "same day it's asked for.",
        "works": "When a client asks for a price or another agent hands one over.",
        "asks_first": "Anything off the rate card, discounts, and before any proposal goes to a client.",
        "reports_to": "Client desk",
        "department": "Clients",
    },
    {
        "name": "Bookkeeper",
        "job": "Sends invoices on time and chases what's overdue",
        "owns": "Invoices and payments in QuickBooks, what's overdue, and the hours behind each invoice.",
        "good": "Invoices out on time; anything a week overdue chased, friendly the first time, and recorded on "
        "the company's timeline with a follow-up.",
        "works": "When Sam asks for figures or about an invoice.",
        "asks_first": "Before chasing anything over $5,000, and before changing or voiding an invoice.",
        "reports_to": "Roadstar",
        "department": "Finance",
    },
]


class PersonSpec(TypedDict):
    name: str
    email: str
    job_title: str  # also their role at the company
    labels: list[str]
    phone: NotRequired[str]
    context: NotRequired[str]
    context_why: NotRequired[str]  # given with context


class CompanySpec(TypedDict):
    name: str
    domains: list[str]
    labels: list[str]
    details: dict[str, str]
    details_why: NotRequired[str]  # given with details
    people: list[PersonSpec]


class TimelineSpec(TypedDict):
    company: str  # a company's name in COMPANIES
    kind: str
    title: str
    summary: str
    at: str  # ISO 8601
    people: list[str]
    thread: str
    state: str
    by: str  # the agent that recorded it


class ProjectSpec(TypedDict):
    name: str
    description: str
    contacts: list[str]  # addresses of contacts linked to it


class DocSpec(TypedDict):
    title: str
    text: str
    lines: list[str]
    by: str  # the agent that wrote it


# Companies; each handled by Client desk. people: name, address, job title (also their role there), …
COMPANIES: list[CompanySpec] = [
    {
        "name": "Juniper Dental",
        "domains": ["juniperdental.test"],
        "labels": ["Client"],
        "details": {"Clinics": "Two; the second opens in March"},
        "details_why": "Dana's quote request said so",
        "people": [
            {"name": "Dana Whitfield", "email": "dana@juniperdental.test", "job_title": "Practice manager",
             "labels": ["Client"]},
        ],
    },
    {
        "name": "Ortiz Bakery",
        "domains": ["ortizbakery.test"],
        "labels": ["Client"],
        "details": {"Pays": "By bank transfer at month end"},
        "details_why": "How Ortiz Bakery has paid the studio's invoices",
        "people": [
            {"name": "Rosa Ortiz", "email": "rosa@ortizbakery.test", "job_title": "Owner", "phone": "+1 555 0142",
             "labels": ["Client"], "context": "Pays by bank transfer at month end; a nudge is enough.",
             "context_why": "How Rosa has paid the studio's invoices so far"},
        ],
    },
    {
        "name": "Ruiz Print Co.",
        "domains": ["ruizprint.test"],
        "labels": ["Supplier"],
        "details": {},
        "people": [
            {"name": "Marco Ruiz", "email": "marco@ruizprint.test", "job_title": "Print manager",
             "labels": ["Supplier"]},
        ],
    },
    {
        "name": "Harbor Florists",
        "domains": ["harborflorists.test"],
        "labels": ["Client"],
        "details": {},
        "people": [],
    },
]

# Conversations on the companies' timelines, from the use cases. by names the agent that recorded it.
TIMELINE: list[TimelineSpec] = [
    {
        "company": "Juniper Dental", "kind": "mail", "title": "Rebrand quote request",
        "summary": "Dana asked for a new logo and signage before the second clinic opens in March.",
        "at": "2026-11-10T10:12:00", "people": ["dana@juniperdental.test"],
        "thread": "7c41e2d0:19a2c4e07d5b3f18", "state": "waiting_you", "by": "Client desk",
    },
    {
        "company": "Ortiz Bakery", "kind": "invoice", "title": "Invoice 1042 chased",
        "summary": "$1,250 for the menu boards, 10 days overdue. Friendly reminder sent to Rosa.",
        "at": "2026-11-10T09:02:00", "people": ["rosa@ortizbakery.test"], "thread": "",
        "state": "overdue", "by": "Bookkeeper",
    },
]

PROJECT: ProjectSpec = {
    "name": "Juniper Dental rebrand",
    "description": "A new logo, a one-page brand guide and signage for Juniper Dental's two clinics, ready before "
    "the second clinic opens in March.",
    "contacts": ["dana@juniperdental.test"],
}

DOC: DocSpec = {
    "title": "Juniper Dental rebrand quote",
    "text": (
        "## Scope\n\n"
        "- Logo and a one-page brand guide\n"
        "- Signage for two clinics: exterior, reception, rooms\n\n"
        "## Price\n\n"
        "| Item | Price |\n"
        "| --- | ---: |\n"
        "| Logo and brand guide | $4,800 |\n"
        "| Signage design, two clinics | $3,600 |\n"
        "| **Total** | **$8,400** |\n\n"
        "Ready in five weeks from a signed quote."
    ),
    "lines": ["Priced from the 2026 rate card: logo $4,800, signage $3,600."],
    "by": "Proposal writer",
}


class Command(BaseCommand):
    help = "Make the example workspace, Fernhill Studio, owned by Sam Rivera. Running it again changes nothing."

    def add_arguments(self, parser):
        # `make run` makes the workspace first and prints the sign-in last, after the sandbox's first install, so
        # the lines are on the screen as the server starts.
        lines = parser.add_mutually_exclusive_group()
        lines.add_argument("--no-sign-in", action="store_true", help="Make the workspace; don't print the sign-in.")
        lines.add_argument("--sign-in-only", action="store_true", help="Only print the sign-in; make nothing.")

    def handle(self, *args, **options):
        password = settings.DEMO_PASSWORD or DEFAULT_PASSWORD
        if settings.ROADSTAR_ENV == "production" and password == DEFAULT_PASSWORD:
            # Everyone who has read the README knows it: a server others reach must not have a sign-in with it.
            raise CommandError(
                "The example workspace's default password is public. Set DEMO_PASSWORD to a password of your own "
                "before making the example workspace on a server others can reach."
            )
        if not options["sign_in_only"]:
            with transaction.atomic():
                made = Seed(password).run()
            if made:
                self.stdout.write(f"Fernhill Studio is ready. Made: {', '.join(made)}.")
            else:
                self.stdout.write("Fernhill Studio was there already; nothing changed.")
        if not options["no_sign_in"]:
            self.stdout.write(sign_in_lines(password, starting=options["sign_in_only"]))


def sign_in_lines(password: str, *, starting: bool) -> str:
    url = f"http://127.0.0.1:{settings.PORT}"
    return (
        ("\nRoadstar is starting (web and worker; Ctrl-C stops both)." if starting else "")
        + f"\nSign in at {url}\n"
        f"  user:     {USERNAME}\n"
        f"  password: {password}\n"
        f"Sam is staff too, so the same sign-in opens the admin at {url}/admin/\n"
    )


class Seed:
    def __init__(self, password: str):
        self.password = password
        self.made: list[str] = []

    def run(self) -> list[str]:
        user = self.user()
        self.org = self.workspace(user)
        self.agents = self.team()
        companies = self.companies()
        self.timeline(companies)
        self.project_and_doc()
        self.made += seed_apps(self.org)
        return self.made

    def note(self, what: str, count: int = 1) -> None:
        if count:
            self.made.append(what if count == 1 else f"{count} {what}")

    # --- the owner and the workspace --------------------------------------------------------------------

    def user(self):
        User = get_user_model()  # noqa: N806
        user, created = User.objects.get_or_create(username=USERNAME, defaults={**OWNER})
        changed = []
        if not user.is_staff or not user.is_superuser:
            user.is_staff = user.is_superuser = True
            changed += ["is_staff", "is_superuser"]
        # The printed password must be the one that works, but an unchanged password is not hashed anew.
        if created or not user.check_password(self.password):
            user.set_password(self.password)
            changed.append("password")
        if changed:
            user.save()
        if created:
            self.note("the user sam")
        elif "password" in changed:
            self.note("sam's password set from DEMO_PASSWORD")
        return user

    def workspace(self, user) -> Organization:
        org = Organization.objects.filter(owner=user).first()
        if org is None:
            org = Organization.objects.create(owner=user, **WORKSPACE)
            self.note("the workspace Fernhill Studio")
        return org

    # --- agents -----------------------------------------------------------------------------------------

    def team(self) -> dict[str, Agent]:
        by_name = {a.name.lower(): a for a in Agent.objects.filter(organization=self.org)}
        roadstar = next((a for a in by_name.values() if a.is_roadstar), None)
        if roadstar is None:
            roadstar = Agent.objects.create(organization=self.org, is_roadstar=True, **ROADSTAR)
            by_name[roadstar.name.lower()] = roadstar
            self.note("Roadstar")
        new = 0
        for spec in AGENTS:  # in chart order: an agent's boss is made before it
            if spec["name"].lower() in by_name:
                continue
            by_name[spec["name"].lower()] = agent_services.agent_make(
                org=self.org, actor=Actor.for_agent(roadstar), **spec
            )
            new += 1
        self.note("agents", new)
        return {a.name: a for a in by_name.values()}

    def actor(self, agent_name: str) -> Actor:
        return Actor.for_agent(self.agents[agent_name])

    # --- companies and their people ---------------------------------------------------------------------

    def companies(self) -> dict[str, Company]:
        desk = self.agents["Client desk"]
        actor = Actor.for_agent(desk)
        existing = {c.name.lower(): c for c in Company.objects.filter(organization=self.org)}
        result, new_companies, new_people = {}, 0, 0
        for spec in COMPANIES:
            company = existing.get(spec["name"].lower())
            if company is None:
                company = company_services.company_create(
                    org=self.org, actor=actor, name=spec["name"], domains=spec["domains"], labels=spec["labels"],
                    handler=str(desk.id),
                )
                if spec["details"]:
                    company_services.company_update(
                        org=self.org, actor=actor, company=company, details=spec["details"],
                        why=spec["details_why"],
                    )
                new_companies += 1
            result[spec["name"]] = company
            for person in spec["people"]:
                new_people += self.person(person, company=company, actor=actor)
        self.note("companies", new_companies)
        self.note("contacts", new_people)
        return result

    def person(self, spec: PersonSpec, *, company: Company, actor: Actor) -> int:
        """Add the person unless their address is on a contact already; 1 when they were added."""
        try:
            contact = contact_services.contact_create(
                org=self.org, actor=actor, name=spec["name"], emails=[spec["email"]], phone=spec.get("phone"),
                job_title=spec["job_title"], labels=spec["labels"],
            )
        except contact_services.ContactExists:
            return 0
        company_services.company_person_link(
            org=self.org, actor=actor, company=company, contact=contact, role=spec["job_title"]
        )
        if spec.get("context"):
            contact_services.contact_set_context(
                org=self.org, actor=actor, contact=contact, text=spec["context"], why=spec["context_why"]
            )
        return 1

    def timeline(self, companies: dict[str, Company]) -> None:
        new = 0
        for spec in TIMELINE:
            company = companies[spec["company"]]
            if TimelineEntry.objects.filter(company=company, title=spec["title"]).exists():
                continue
            company_services.timeline_entry_record(
                org=self.org, actor=self.actor(spec["by"]), company=company, kind=spec["kind"], title=spec["title"],
                at=datetime.datetime.fromisoformat(spec["at"]), summary=spec["summary"], people=spec["people"],
                thread=spec["thread"], state=spec["state"],
            )
            new += 1
        self.note("timeline entries", new)

    # --- a project and a doc in it ----------------------------------------------------------------------

    def project_and_doc(self) -> None:
        actor = self.actor(DOC["by"])
        project = Project.objects.filter(organization=self.org, name=PROJECT["name"]).first()
        if project is None:
            project = doc_services.project_create(
                org=self.org, actor=actor, name=PROJECT["name"], description=PROJECT["description"]
            )
            self.note(f"the project {project.name}")
        for email in PROJECT["contacts"]:
            contact = contact_selectors.contact_by_email(org=self.org, email=email)
            if contact is not None and contact_services.contact_link_project(
                org=self.org, actor=actor, contact=contact, project=project
            ):
                self.note(f"a link from {contact.name} to the project")
        if not Doc.objects.filter(organization=self.org, title=DOC["title"]).exists():
            doc_services.doc_write(
                org=self.org, actor=actor, title=DOC["title"], text=DOC["text"], lines=DOC["lines"], project=project
            )
            self.note(f"the doc {DOC['title']}")


# --- The owner's apps: Fernhill Studio's mail, files, calendar and books in the local providers ---------------
#
# One local connection serves all four groups, under the account key of the spec's examples (7c41e2d0), so ids
# such as 7c41e2d0:19a2c4e07d5b3f18 are the example workspace's own. Each group seeds its data in its own
# function of APP_SEEDS: (org, connection) -> the notes of what it made; each finds its records by a natural key
# first (an event's uid, an invoice's id), so running it again changes nothing.
#
# The story's "today" is Tuesday, November 10, 2026, the day of the spec's use cases: invoice 1042 is ten days
# overdue then, and the meetings are the week after, when the kickoff call is booked.

APPS_ACCOUNT = "sam@fernhill.test"
APPS_ACCOUNT_KEY = "7c41e2d0"


def seed_apps(org: Organization) -> list[str]:
    """The example workspace's apps: the local connection, then each group's data."""
    made: list[str] = []
    connection = Connection.objects.filter(organization=org, app=Connection.App.LOCAL, account=APPS_ACCOUNT).first()
    if connection is None:
        connection = connection_create_local(
            org=org, account=APPS_ACCOUNT, groups=["mail", "files", "calendar", "books"]
        )
        if not Connection.objects.filter(organization=org, account_key=APPS_ACCOUNT_KEY).exists():
            Connection.objects.filter(pk=connection.pk).update(account_key=APPS_ACCOUNT_KEY)
            connection.refresh_from_db()
        made.append(f"the local mail, files, calendar and books of {APPS_ACCOUNT}")
    for seed in APP_SEEDS:
        made += seed(org, connection)
    return made


# The week after the story's today, in Sam's time (New York). Mornings are busy but for Tuesday 10 to 11 and
# Thursday 9 to 10: the free hours the kickoff-call use case finds.
MEETINGS = [
    # (uid, day, start, end, title, guests)
    ("fernhill-planning-20261116", 16, "09:00", "10:00", "Studio planning", []),
    ("fernhill-harbor-catalogue-20261116", 16, "10:00", "12:00", "Harbor Florists catalogue: layouts", []),
    ("fernhill-ruiz-proofs-20261116", 16, "14:00", "14:30", "Print proofs with Ruiz Print Co.",
     ["marco@ruizprint.test"]),
    ("fernhill-harbor-visit-20261117", 17, "09:00", "10:00", "Site visit: Harbor Florists shopfront", []),
    ("fernhill-ortiz-menu-20261117", 17, "11:00", "12:00", "Ortiz Bakery: spring menu boards",
     ["rosa@ortizbakery.test"]),
    ("fernhill-workshop-20261118", 18, "09:00", "12:00", "Signage materials workshop", []),
    ("fernhill-ruiz-run-20261118", 18, "15:00", "16:00", "Print run check-in with Marco", ["marco@ruizprint.test"]),
    ("fernhill-brand-guide-20261119", 19, "10:00", "12:00", "Brand guide writing (focus)", []),
    ("fernhill-harbor-present-20261120", 20, "09:00", "11:00", "Harbor Florists catalogue presentation", []),
    ("fernhill-admin-20261120", 20, "11:00", "12:00", "Studio admin and invoices", []),
]


def seed_calendar(org: Organization, connection) -> list[str]:
    zone = owner_zone(org)
    known = set(LocalEvent.objects.filter(connection=connection).values_list("uid", flat=True))
    new = 0
    for uid, day, start, end, title, guests in MEETINGS:
        if f"{uid}@fernhill.test" in known:
            continue
        on = datetime.date(2026, 11, day)
        event_put(
            connection, uid=f"{uid}@fernhill.test", title=title, guests=guests,
            start=datetime.datetime.combine(on, datetime.time.fromisoformat(start), tzinfo=zone),
            end=datetime.datetime.combine(on, datetime.time.fromisoformat(end), tzinfo=zone),
        )
        new += 1
    return [f"{new} meetings"] if new else []



class CustomerSpec(TypedDict):
    number: int
    email: str


CUSTOMERS: dict[str, CustomerSpec] = {
    "Ortiz Bakery": {"number": 58, "email": "rosa@ortizbakery.test"},
    "Harbor Florists": {"number": 61, "email": "accounts@harborflorists.test"},
}

# Invoices: (id, customer, date, due, balance, memo, emailed, lines [(description, item, quantity, unit price)]).
INVOICES = [
    (1038, "Harbor Florists", "2026-09-08", "2026-10-08", "0", "Shopfront sign, design and install", True,
     [("Shopfront sign design", "Design", 1, "1600"), ("Sign fabrication and install, via Ruiz Print Co.",
                                                        "Production", 1, "800")]),
    (1040, "Ortiz Bakery", "2026-09-15", "2026-10-15", "0", "Seasonal window posters", True,
     [("Window poster design, autumn", "Design", 1, "480"), ("Poster printing", "Production", 4, "50")]),
    (1042, "Ortiz Bakery", "2026-10-01", "2026-10-31", "1250", "Bakery menu boards. Thank you for your business!",
     True, [("Menu board design, three boards", "Design", 3, "250"), ("Menu board printing and mounting",
                                                                      "Production", 1, "500")]),
    (1043, "Harbor Florists", "2026-11-02", "2026-12-02", "1800", "Spring catalogue layout", True,
     [("Spring catalogue layout, 24 pages", "Design", 24, "75")]),
]


def seed_books(org: Organization, connection) -> list[str]:
    known = set(LocalInvoice.objects.filter(connection=connection).values_list("number", flat=True))
    new = 0
    for number, customer, date, due, balance, memo, emailed, lines in INVOICES:
        if number in known:
            continue
        items = [LineIn(description=d, item=i, quantity=Decimal(q), unit_price=Decimal(p),
                        amount=Decimal(q) * Decimal(p)) for d, i, q, p in lines]
        invoice_put(connection, InvoiceIn(
            number=number, doc_number=str(number), customer=customer,
            customer_number=CUSTOMERS[customer]["number"], email=CUSTOMERS[customer]["email"],
            date=datetime.date.fromisoformat(date), due=datetime.date.fromisoformat(due),
            total=sum((line.amount for line in items), Decimal("0")), balance=Decimal(balance), currency="USD",
            memo=memo, emailed=emailed, url=f"https://app.qbo.intuit.com/app/invoice?txnId={number}", lines=items,
        ))
        new += 1
    return [f"{new} invoices"] if new else []


def seed_files(org: Organization, connection) -> list[str]:
    return files_example(org, connection)


# Fernhill's mail: Dana's enquiry (new-client-enquiry) and Sam's own mail to the clients (contacts-from-mail).
MAIL = [
    # (key, box, sender, to, subject, day, time (New York), text)
    ("fernhill-dana-enquiry", "inbox", "Dana Whitfield <dana@juniperdental.test>", ["sam@fernhill.test"],
     "Rebrand for our second clinic", 10, "10:12",
     "Hi Sam,\n\nWe're opening our second clinic in March and would love a new logo, plus signage for both "
     "locations. Could you send us a quote?\n\nThanks,\nDana Whitfield\nPractice manager, Juniper Dental"),
    ("fernhill-rosa-boards", "sent", "Sam Rivera <sam@fernhill.test>", ["rosa@ortizbakery.test"],
     "Menu boards: final files", 2, "16:40",
     "Hi Rosa,\n\nThe final files for the menu boards are attached to the invoice. Thanks for a lovely job!\n\nSam"),
    ("fernhill-marco-proofs", "sent", "Sam Rivera <sam@fernhill.test>", ["marco@ruizprint.test"],
     "Proofs for Harbor Florists", 5, "09:05",
     "Hi Marco,\n\nCould you send proofs for the Harbor Florists catalogue by Friday?\n\nSam Rivera\nFernhill Studio"),
]


def seed_mail(org: Organization, connection) -> list[str]:
    zone = owner_zone(org)
    new = 0
    for key, box, sender, to, subject, day, time, text in MAIL:
        if LocalMailMessage.objects.filter(connection=connection, key=key).exists():
            continue
        hour, minute = (int(part) for part in time.split(":"))
        at = datetime.datetime(2026, 11, day, hour, minute, tzinfo=zone)
        message_store(connection, Incoming(sender=sender, to=to, subject=subject, text=text, date=at, box=box,
                                           key=key))
        new += 1
    return [f"{new} emails"] if new else []


# Each group's seed, in order.
APP_SEEDS = [seed_calendar, seed_books, seed_files, seed_mail]
