"""The layers around the records
=============================

Apps in one layer don't import each other. The records' tables point at each other both ways (a contact's open items
and log name a company, a company's people and a project's links name a contact), so their models are one app,
`records` (2026-12-01: moved there from contacts, companies and docs in Django's state only, each table keeping its
name and rows, `records/migrations/0001`); `contacts.models`, `companies.models` and `docs.models` name the same
models for the code above, and the staff admin lists them under Records (`/admin/records/...`). Over them the code
has one direction: companies reads and writes the contacts' log and open items (`contacts.services.log_write`,
`contacts.selectors`), and docs imports neither; no app imports another of its layer or a higher one, and the shared
app-cycles tool finds no cycle. `tests/`, `bench/` and `scripts/` may import anything. `tests/test_layers.py` reads
every import of every app with `ast` (inside functions, under `if TYPE_CHECKING:`, and
`importlib.import_module("...")` with a literal name too), and every model relation named by label
(`ForeignKey("agents.Agent")`), and fails on one against the layers. The imports that still go against them are
listed there in `KNOWN_DEBTS`, each with its reason; the test also fails when a listed one is gone, so the list only
shrinks. A new app fails the test until it is placed in `LAYERS` (at the lowest layer that holds what it imports)
and in ARCHITECTURE.md's picture. Imports are at the top of their module; those made inside a function each say why
on the line above: an app's hooks.py (read while the apps load, before the runtime should be), a cycle within one
app (the scheduler and the turn; integrations' oauth and its models; the provider registry and its selectors), the
`reply` tool's turn kept out of `django.setup()`, the MCP SDK loaded on the first /mcp request.
"""
