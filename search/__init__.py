"""Search
======

The `search` app sits above `integrations`, below `tools`. One table, `SearchItem`, holds everything search finds:
the workspace's own docs, contacts, companies and projects (always), and a copy of the mail, files and meetings of
each account whose owner turned search on (`integrations.SearchCopy`, a per-connection setting with its toggle and
progress on Connections). `SearchPerson` (everyone on an item, the owner's addresses marked) and `SearchPlace`
(folders, labels, a doc's project) serve from/to/with, counts.people and `in`.

- **Research pages and tables** are the workspace's own content too (`page`, `table`): a page once the writer has
  written it (its question and every piece of its current revision's words), a table with its question, columns and
  every row's values, caught up by `updated_at` (a table also by its rows' `researched_at`, which the workers write
  without touching the table's row) and removed when deleted. `research` sits one layer below `search` for this.
- **What the copy takes over** (`search/takeover.py`): an account whose copy is on, first synced, not failed, and
  whole (Gmail, Drive, the local ones; not OneDrive, whose delta follows only the owner's own drive) is left out of
  `mail.search` / `files.search`; `mail.read` / `files.read` of a thread or file the copy holds answer with its id
  in search; once every mail account is so, the mail group's `tool_on` keeps only `draft` and `send` (browse_tools,
  find_tools and use_tool all ask `registry.tool_on`); the mail and files how-tos name the accounts in search.
- **The index** (`search/fts.py`) is one interface over two databases: SQLite FTS5 (an external-content table over
  `search_searchitem`, kept by triggers) and PostgreSQL full-text search (`vector`, a `SearchVectorField` filled by
  a trigger, with a GIN index; `websearch` queries), both made in migration 0001 for the database it runs on. Both
  are literal (`simple` / unicode61); every phrase of the user's query is quoted (identifiers such as "PO 4471" and
  addresses stay whole phrases), so nothing typed is read as the index's syntax. No LIKE scans. Django remakes a
  SQLite table to alter it, dropping its triggers: a migration altering SearchItem must call
  `search.fts.install_sqlite_triggers` after.
- **What keeps it current**: the workspace's records are caught up by `updated_at` before each search (bulk writes
  send no signals) and leave at once when deleted (post_delete signals). The accounts are copied by `search/sync.py`
  from the local providers' own tables (mail by message id, files by their change log, meetings by (updated_at,
  id)), batch by batch, each batch's items committing with its position, under a leased claim on the SearchCopy: a
  worker killed mid-sync is resumed by the next sweep (`search.tasks.sweep`, every minute) where it stopped, and an
  upsert on (workspace, key) means nothing is copied twice. A sweep copies for at most 40 seconds and the next goes
  on, so a large first sync spans sweeps; meanwhile `sources` and `hint` say the account is still being copied. A
  message, file or meeting deleted at the source leaves the copy in the deleting transaction. Before each search,
  one short batch per current account catches new mail up. Turning search off hides the copy at once; the sweep
  deletes it.
- **Google accounts** (`search/google_copy.py`, over the Gmail, Drive and Calendar providers' copy methods): each
  part is first listed (the app's position of now taken first: Gmail's historyId, Drive's start page token; then
  messages.list / files.list / events.list a page at a time, the next page token committed with each page's items),
  then kept current from that position: Gmail's history.list (added and relabelled messages read again, 50 to a
  batch request: a page of 100 is 3 exchanges with Gmail, not 101; deleted, trashed or spam ones removed with their
  attachments), Drive's changes.list (a Google Doc, Sheet or Slides exported, other files downloaded, text extracted
  as files.read does; removed or trashed ones removed), Calendar's events.list with the sync token (cancelled ones
  removed). A position the app no longer takes (an expired historyId's 404, Calendar's 410 Gone) lists the part
  again; at a listing's end, what the copy held from before it began and wasn't listed again is deleted (by
  `copied_at`). Every call to Google is made before the batch's transaction. A rate limit or an app not answering
  holds the copy off (`claimed_until` with no claim) for 1, 2, 4 ... 60 minutes, said on Connections; a refused
  sign-in marks the connection needs_reconnect with its Home card, and the copy goes on from its position once it is
  connected again. Google accounts get no catch-up before a search (that would be calls to Google on every search):
  they are as current as the last sweep.
- **Related results** (`search/embeddings.py`): where `ROADSTAR_EMBEDDING_URL` names an OpenAI-compatible embeddings
  endpoint (model, key and dimensions beside it in settings), the worker (`search.tasks.embed`, every minute, 40 s
  at most) embeds each item's title and first 6,000 characters in batches of 64 through the `openai` SDK (its own
  retries), with no transaction open across the call; a batch's vectors are written after, only for items whose text
  is still the one embedded, so a killed worker goes on from what is written. `SearchEmbedding` keeps float32
  vectors at length 1 with a digest of the text; the writer drops it when an item's text changes; an item the
  endpoint refuses (a 4xx) is marked and not tried again until its text changes. A search with words embeds its
  query and appends up to 5 results by meaning (`related: true`, and `related`: how many) after the first page:
  among what the other filters allow, none the words matched, one per thread. Ranking is in Python: every
  candidate's sign bits (one bit a dimension, `SearchEmbedding.signs`) against the query's, then the 200 nearest so
  ranked exactly by cosine; exact up to 200 candidates, and beyond, an item whose bits differ more than 200 others'
  is missed. Comparing every full vector in Python would cost about a second per 10,000 (bench/PERFORMANCE.md). This
  Python's sqlite3 is built without loadable extensions, so sqlite-vec can't load, and this PostgreSQL has no
  pgvector (nor does Debian 12 package it). Without an endpoint, or when it fails, search answers without them.
  `search.search` declares `calls_apps` so it runs with no transaction open.
- **Attachments**: each mail attachment is its own item (`mail:<account>:a:<key>`, typed by its file kind, its text
  extracted with `integrations.files.content` at copy time, in its message's thread with its people), so its words
  are found, the thread stays one result, and search.read reads its text; the message lists each with its `quality`
  (text, a picture, no text and why).
- **`search.search`** (`search/selectors.py`): every filter; `after`/`before` read in the owner's zone
  (`search/dates.py`: dates, "last week", "this month", "30 days ago"); exact `total` (matching items) and counts by
  type, source, year, dir and people (top 25) over every match with SQL aggregates; results one per thread
  (`group`), `moreInThread`, `understood`, a cursor bound to the filters. `search.read` pages 30,000 characters and
  reads a whole thread by its id (`mail:<account>:t:<thread>`; local mail ids say `mail`, not `gmail`).
- **Tallies for broad searches** (`search/tallies.py`): `SearchTally` (items) and `SearchPeopleTally` (items per
  person) per workspace and bucket of source, type, year, dir, bulk and UTC month, kept by triggers on
  search_searchitem and search_searchperson (migration 0003, which also sums what is there), so they never drift
  from the rows. A search whose only filters are type, dir, bulk and dates reads its exact total and counts from the
  tallies for the whole months inside its dates, and counts the items of the partial months at its ends one by one.
  `SearchPerson.counted` marks one row per item and address (not the owner's), so counting people is a COUNT of
  rows, not a COUNT(DISTINCT). A migration altering SearchItem or SearchPerson on SQLite must call
  `search.tallies.install_sqlite_triggers` after (as for fts).
- The group's how-to names the accounts in search and since when (`Group.how_to_for`); with none it is the spec's
  text word for word.
"""
