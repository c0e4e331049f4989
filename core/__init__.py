"""The bottom layer
================

- **No transaction across a network call** (`core/network.py`): every SMTP hand-off, Google and QuickBooks call,
  OAuth token exchange or refresh, and model call (turns, memory, the check's judge, routine matching) calls
  `network_call()` first, which refuses (development, tests) or logs (production) a transaction left open.
- **Your work and Undo**: every change a tool makes is a `core.models.Change` with a sentence, its listing (on Home,
  on Home with Undo, or on the record) and what its undo needs (`undo`: before/after snapshots via `core/undo.py`).
  `core.services.change_undo` finds the tool's registered undo, which restores exactly what was there or answers
  `changed` when the record moved on; the Undo is itself recorded. An undo in an app runs with no transaction open:
  the change is claimed first (a conditional write), the claim given back if the app's undo fails. Changes that
  "show on the record itself" also write a `records.models.LogEntry` (one log model for contacts and companies,
  linked to the Change).
- **Records**: `contacts` (Contact, ContactEmail unique per workspace case-insensitively, OpenItem, LogEntry),
  `companies` (Company, CompanyPerson, TimelineEntry soft-removed so Undo can restore it), `docs` (Project,
  ProjectLink, Doc with every DocVersion, DocNote for the owner's notes and the agents' answers).
- **Everything is scoped by organization**: selectors take `org` and raise `not_found` for another workspace's id.

Lint and the shared helpers
---------------------------

- **ruff** (`ruff.toml`, pinned in `requirements-dev.txt`): pycodestyle errors and warnings, pyflakes, import order
  (the root packages first-party) and bugbear, 120 columns; migrations are left as generated, and the agents' prompt
  modules may have long lines (their text is what the model reads). `make test` (so CI) runs `ruff check .` before
  pytest, so a finding fails the build. A `noqa` is per line and says why.
- **mypy** (`mypy.ini`, pinned with django-stubs, djangorestframework-stubs and the `types-*` stubs in
  `requirements-dev.txt`): every app, with `check_untyped_defs`, `strict_equality` and the django, DRF and pydantic
  plugins (models and querysets typed from the models; a pydantic model's `__init__` takes its fields, typed).
  `tests/` is not checked (untyped fixtures and fakes). `make test` runs `mypy` right after ruff, its cache in
  `var/mypy-cache`. A `# type: ignore` names its error code and says why. Tool inputs are types mypy reads, their
  limits the Annotated metadata pydantic reads (`name: Annotated[str, Chars(1, 200)]`, `limit: Annotated[int,
  Whole(1, 50)]`, `core.inputs`; 2026-12-01): the input schemas are the same as with the calls `Text(1, 200)` they
  replace, which mypy read as Any. No module is relaxed any more (the last per-module error codes were fixed on
  2026-12-01): every app is checked with the same settings.
- **One copy of each helper**: a request's workspace is `core.http.workspace_of` / `workspace_or_404`; an id as a
  UUID (or None) is `core.inputs.as_uuid`; the owner's time zone, with UTC for a name Python doesn't know, is
  `core.owner_zone.owner_zone`; the budget form and its dollars are `agents.forms` (Home's card and the Agents
  page); what agents spent this month is `agents/selectors.py`; the routines page reads `routines/selectors.py`;
  Your work's change lines and the open cards are `core/selectors.py` (Home and the REST API); the notes on a doc
  with their answers are `docs.selectors.doc_notes_with_answers` (the doc page and the REST API).
"""
