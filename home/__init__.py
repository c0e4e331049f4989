"""Home, pages and the API
=======================

- **Home and chats** (`home/views.py`, `templates/`): server-rendered. Live updates: services call
  `core.live.notify` after commit; the websocket consumer at `/ws/home/` joins only the signer's workspace group and
  the page re-fetches its part. The channel layer is Redis when `REDIS_URL` is set, else a small SQLite-file layer
  (`roadstar/channel_layer.py`) that crosses processes (web and worker) with no Redis.
- **Pages** (`pages/`): contacts, companies, docs (MDX rendered safely by `pages/mdx.py`: Markdown, Callout, Figure,
  Columns, MetricGrid, and vega-lite charts drawn with the vendored vega-embed), the agents chart, routines.
- **REST API** (`api/`, DRF under `/api/`): token or session auth, one error shape `{error, message}` with the 12
  kinds, an OpenAPI schema from drf-spectacular at `/api/schema/`.
- **Admin**: every model, for staff, under Roadstar's name (`roadstar/admin_site.py`, `templates/admin/`).

The owner's first hour (ux)
---------------------------

- **One time zone**: `core/owner_zone.py`'s middleware runs every request in the signer's workspace zone, looked up
  only when something first asks (a request that shows no time reads nothing for it). Pages show times in it; a time
  given without an offset (an agent's `at`, a `before` in a page's address) is in it, never UTC.
- **Your work's change lines** are read as named rows of the columns a line shows, a page of 50 by keyset paging on
  `change_home_order_idx`, and each line's `<li>` is made in the view (`home.views.line_html`, every value escaped;
  the form's CSRF token and return address made once a page): the template puts the lines in place, one variable
  each.
- **Your work says where and why** (`home/selectors.py` `home_work`, `_stuck`): each piece of work links to its
  thread's page (`chat/<agent>/threads/<thread>/`, read-only: its work and what was said) or the agent's chat, and
  work that isn't moving says why in the owner's words (stopped: the Try again card's words; can't start: no model;
  couldn't start before a model was set; paused for the budget; waiting for another agent's answer), with Try again
  (`work/<id>/try-again`) where that would move it.
- **No model** (`agents.runtime.model.model_connected`): Home shows the model card from the start (and never the
  turn's own model card beside it), `/help/model/` gives the README's section, chats say the agent can't work yet.
- **No judge model**: Home says what the check does then and lets the owner switch `Organization.without_judge`.
- **The MCP page** shows `mcp_server.server.mcp_url(request)`: `ROADSTAR_URL`'s address when set, else the one the
  browser reached; tokens, addresses and redirect URIs sit in `.copy-row`s that wrap, with Copy buttons
  (`static/roadstar/copy.js`).
- **Limits shown, typed text kept**: a field with `data-limit` shows "n of N characters" as the owner types
  (`static/roadstar/limits.js`, on every page) and is never cut (no `maxlength`); a refused doc note, chat message
  or answer on Home renders the page again (400) with the text in its box and the reason beside it.
- **Page titles**: "<what it shows> · <nav section> · Roadstar" on every owner page
  (`tests/pages/test_page_titles.py` holds the pattern).
- **In a browser** (`tests/browser/test_owner_pages.py`): Home, a chat, a record page and a new MCP token at 390 px
  with nothing to scroll sideways; a held email opened from Home; an ask's action; the 404 on a second daphne
  without DEBUG (the shared stack runs with DEBUG=1).

The owner's first hour, round two (issue 27)
--------------------------------------------

- **The model, set on a page** (`home/settings_views.py`, `/settings/model/`): `core.models.ModelEndpoint`, one a
  workspace (address, the key as `core.crypto` ciphertext, the four model names), written by
  `core.services.model_endpoint_set`; `core/model_endpoint.py` `endpoint_for(org)` says where a workspace's calls
  go, the environment's `OPENAI_BASE_URL`/`OPENAI_API_KEY`/`MODEL_<ID>` winning setting by setting. It is in core
  because every caller of a model is above it (agents, routines, the judge's checks): `get_model(org)` and
  `model_connected(org)` read it at each call (one indexed read), and `_configured_model` keeps a client per
  endpoint, so a change needs no restart. The Test button is `agents.runtime.model.endpoint_try`: one call, no tries
  again, its answer in the owner's words. The check's judge still reads only the environment (`checks/judge.py`).
  `core/crypto.py` is the apps' token encryption, moved down from integrations (which re-exports it) so the model
  key uses the same keys.
- **Roadstar's words in an agent's conversation** (`data.no_model`, `data.notice`: "I can't work yet", a research
  page that failed) show as the agent's but are no reply of the model's (`agents.runtime.turn._is_reply`): what came
  before them still waits, so Try again after a model is connected reaches it; a notice reaches the model as news,
  "no model" not at all. A refused call (4xx, `ModelRefused`) is tried once and its card says so.
- **The owner's own records**: `contacts.services.contact_add_by_owner` / `contact_edit_by_owner` (Contacts' Add, a
  contact's Edit): the contact's log, and a Home line with the new values; the edit's Undo is registered as
  `contacts.owner_edit`. Home's lines link to the record they made or changed (`home.views._record_href`).
- **Owner words**: `home/templatetags/owner_text.py` turns an agent's `roadstar:contact/<id>` link into a link to
  the page (chat bubbles, asks, cards); `pages/routine_words.py` says a routine's cron line as a sentence; the help
  has "Getting started" and each section's own address lists its pages (`pages/help_views._section_root`).
- **Screens**: `screens/*.png` (README, "What it looks like"), made by `tests/browser/test_owner_first_hour.py` with
  `ROADSTAR_SCREENS=screens`.
"""
