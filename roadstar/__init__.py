"""How Roadstar runs
=================

Processes
---------

- **web**: daphne serving `roadstar.asgi:application`: Django views (Home, sign-in, admin), and the apps that mount
  beside Django in `roadstar/asgi.py` (the MCP server at `/mcp`, websockets for the live Home).
- **worker**: `python manage.py worker` (django-q2's cluster with the ORM broker, woken on enqueue by
  `roadstar/broker.py`: LISTEN/NOTIFY on PostgreSQL, a named pipe beside the SQLite file, sent on commit, with the 1
  s poll as the fallback; `core/management/commands/ worker.py` keeps SIGTERM and SIGINT from the processes it
  forks, so a signal to the whole group, as honcho and Ctrl-C send, reaches only the main process, which stops the
  rest in order and reaps them; its processes keep their database connections, health-checked, instead of closing
  them by CONN_MAX_AGE before each task and each look at the queue, and each worker process connects as it starts;
  what it loaded before forking is frozen out of the garbage collector's sight, `gc.freeze()`, so a worker's first
  full collection doesn't copy the shared heap's pages). It runs agent turns (`agents.tasks.run_turn`), event
  matching (`routines.tasks.match_event`) and, every minute, the routines tick and a dispatch sweep (`python
  manage.py schedule_ticks` makes those schedules; `make run` runs it). The Procfile `exec`s both processes, so
  honcho's signals reach them rather than a shell.
- **Background work steps aside on one worker**: the embedded default runs one worker process, so the minute's long
  sweeps (copying accounts into search, embedding the copy) work in batches and stop after the batch in hand when
  another task waits in the queue (`core.queue.others_waiting`); what is left goes on in their next run. With more
  workers (PostgreSQL's default of four) they don't stop: another worker takes the waiting task.
- **Embedded default**: SQLite in WAL mode (`synchronous=NORMAL`, `busy_timeout`, IMMEDIATE transactions), one
  worker process. **Scale-out**: `DATABASE_URL` (PostgreSQL) for data and the queue, `REDIS_URL` for channels. On
  PostgreSQL the web takes its connections from a pool (Django's `pool` option over psycopg_pool, 2 to
  `ROADSTAR_DB_POOL_MAX`, 20 by default, each tried before it is handed out): daphne runs each request's view in a
  thread of its own and Django keeps a connection per thread, so without it every request opened a connection. The
  worker leaves the pool out (a pool's threads don't survive the cluster's fork) and keeps one a process.
- **Settings** (`roadstar/settings/`): `base.py` declares every setting the code reads, from the environment;
  `development.py` (`make run`: the public development key, this machine's host names only), `test.py` (named by
  `pytest.ini`) and `production.py` (refuses to start without a real `SECRET_KEY` and `ALLOWED_HOSTS` or with
  `DEBUG`; HTTPS-only cookies, HSTS). `manage.py`, `asgi.py` and `wsgi.py` call `roadstar.settings.configure()`,
  which takes `DJANGO_SETTINGS_MODULE`, else `ROADSTAR_ENV`, else development only while every allowed host is
  local. Every response carries a Content-Security-Policy; errors answer Roadstar's own pages (`templates/404.html`
  and the others, on `templates/errors/page.html`). `checks/SECURITY.md`, "Security: the server", has the detail.

Where the build differs from the design guidance
------------------------------------------------

- One `LogEntry` model serves contacts and companies, and one `OpenItem` model both.
- `checks/` works on the check-case data shape, so the live check and `check_eval` share one path.
- A chat turn covers every piece of work open when it starts; work sent on is "passed" or "kept".
- Routine threads don't count towards an agent's 30 open threads: they belong to their routines.

Where the spec is read one way of two
-------------------------------------

- **`kind:form.submitted`**: the spec names the key but defines no form an owner's visitors could fill in, so
  nothing would ever tell it; `triggers` refuses it (bad_input naming the kinds Roadstar tells) rather than keep a
  routine that never fires.
- **Contacts added from mail**: the use case's answer says they show on Home "with Undo"; the tools page lists
  `contacts.add_many` "listed on Home", without Undo. The tools page is the reference: no Undo.
- **Tries of a failed model call: 5**: read as the call that failed, then 5 tries again, 2, 4, 8, 16 and 32 seconds
  apart (five waits need a try after each).
- **`docs.write` without `projectId`**: the doc goes in the project the agent files into: the one its chat or thread
  last wrote a doc in or made, else the agent's own project ("<agent>'s docs", `Project.agent`). The owner, through
  the API, names a project.
- **No judge model**: the spec says that without the check set up every action runs; Roadstar asks by default and
  lets the owner choose (`Organization.without_judge`, README "The owner's yes without a judge model").
"""
