"""The tools: registry, pipeline, catalog
======================================

- **`tools/`**: `registry.py` holds one declaration per tool (name, the spec's description word for word, a pydantic
  `ToolInput` carrying the limits, the owner's-yes kind or a function of the input for "Depends" tools, the Home
  listing, the undo, what it `replaces` for the check, and the read of its records it makes first, `reads_first`).
  It refuses duplicates and inconsistent declarations at import. `groups/<group>.py` declares each group: thin
  functions that call one service. The groups are found by convention, with no list to keep: every module of
  `tools/groups/`, and the `tool_groups.py` of any installed app (for a group over apps above tools, which tools
  can't import by name; the way Wagtail finds `wagtail_hooks`). `registry.load_all()` imports them once, in
  INSTALLED_APPS order, from `ToolsConfig.ready()`, so every process (web, worker, a management command, the tests)
  has every tool from `django.setup()` on (about 0.3 s of it: the web, research and search modules the groups wrap);
  nothing else needs to call it, and calling it again does nothing. A second declaration of a group or tool name,
  from any app, fails at load. The agent tools are declared in the same registry with the same fields and their
  places (`register_agent_tool`, the `agent_tool` decorator), by each app's `agent_tools.py`, found the same way;
  their kind may also be `works` (the agents' own work: a hand-off, a thread, a note; no yes, nothing on Your work).
  `pipeline.py` is `use_tool`: resolve, then `run_tool` (which the agent tools' dispatcher calls too): validate
  (`bad_input` naming the field path) → the check (no transaction open: its judge is a model) → run → record a
  `Change` → return JSON (`{"done": true}` for nothing). A tool of Roadstar's own records runs in one transaction
  with its Change. A tool that calls an app (`Tool.calls_apps`: the mail, files, calendar and books groups, and
  `contacts.timeline`) runs with no transaction open; what it writes here (returned as `Writes`: `mail.send`'s held
  email, `mail.draft`'s log lines) commits with its Change in one short transaction after the app's work. Either way
  the caller's record of the call (a turn's ToolCall, through `recording`) commits in that transaction. A write that
  waits out the database's busy timeout answers `unavailable`, "busy, try again" (the REST API a 503, and every
  other page Roadstar's busy page, from `core/middleware.py`). `catalog.py` is browse/find. `manage.py tools --json`
  lists every tool.
"""
