# The README's two commands: `make run` starts Roadstar on the example workspace, `make test` runs the suite.
# Both set everything up on a fresh machine: a .venv with Python 3.12, the pinned requirements, the database.

VENV := .venv
PY := $(VENV)/bin/python
# The workspace's own Python (the agents' sandbox): Debian's python3 with requirements-workspace.txt.
WORKSPACE_VENV := var/workspace-venv
PORT ?= 8000

.PHONY: run serve test test-postgres bench smoke migrate seed clean workspace

$(VENV)/.python:
	@python=$$(scripts/find-python) && "$$python" -m venv $(VENV) && echo "$$python" > $@

$(VENV)/.installed: $(VENV)/.python requirements.txt
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

# The sandbox needs Debian's bubblewrap, python3(-venv) and nodejs (apt-get, as root, where missing), and its own
# venv, made once and kept until requirements-workspace.txt changes (the stamp, as for .venv).
$(WORKSPACE_VENV)/.installed: requirements-workspace.txt
	scripts/ensure-bubblewrap
	@if [ -x /usr/bin/python3 ]; then \
		/usr/bin/python3 -m venv $(WORKSPACE_VENV) && \
		$(WORKSPACE_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-workspace.txt && \
		touch $@; \
	else echo "make: no /usr/bin/python3; the workspace runs without its libraries"; fi

workspace: $(WORKSPACE_VENV)/.installed
	@scripts/ensure-bubblewrap

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput

seed: migrate
	@$(PY) manage.py seed_demo --no-sign-in

# The sign-in lines come last, after the workspace's first install and the example's own lines, so they are on the
# screen when the server starts (the web server's access log is off and the log shows warnings only: LOG_LEVEL).
# Ctrl-C is how it stops: honcho's 130 (or 143 for a TERM) is a clean end, not an error of make's.
run: seed workspace
	@$(PY) manage.py schedule_ticks
	@$(PY) manage.py seed_demo --sign-in-only
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PORT=$(PORT) $(VENV)/bin/honcho start; rc=$$?; \
		if [ $$rc -eq 130 ] || [ $$rc -eq 143 ]; then echo "Roadstar stopped."; else exit $$rc; fi

# Production (README, "Running in production"): the same two processes without the example workspace. The
# settings module is chosen from ROADSTAR_ENV / ALLOWED_HOSTS and refuses to start without what it needs.
serve: migrate workspace
	$(PY) manage.py schedule_ticks
	@echo "Starting Roadstar on $${BIND_ADDRESS:-127.0.0.1}:$(PORT) (web and worker; Ctrl-C stops both)"
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PORT=$(PORT) $(VENV)/bin/honcho start; rc=$$?; \
		if [ $$rc -eq 130 ] || [ $$rc -eq 143 ]; then echo "Roadstar stopped."; else exit $$rc; fi

# The browser tests drive Debian's Chromium: ensure-chromium installs it where it is missing (apt-get, as root).
# They share one running stack, so they stay together on one worker (loadgroup; the rest spread as with load).
# ruff (ruff.toml) and mypy (mypy.ini) run first: a lint or type finding fails the build before the suite starts.
# mypy keeps its cache in var/mypy-cache, so a repeat run reads only what changed.
# The suite's bytecode (and pytest's rewritten test modules) goes to var/pycache, even where the environment sets
# PYTHONDONTWRITEBYTECODE (these machines do): otherwise each pytest worker, and each process a test starts (web,
# worker, the crash tests), compiles the whole project again, about 17 s of CPU a worker for collection alone.
# The 20 slowest tests are listed at the end of each run (--durations), so a test that grew slow shows in CI.
test: $(VENV)/.installed-dev workspace
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	scripts/ensure-chromium
	scripts/ensure-ts-mcp-client
	scripts/ensure-redis
	PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/var/pycache $(PY) -m pytest -q -n 2 --dist loadgroup --durations=20

bench: $(VENV)/.installed-dev workspace
	$(PY) bench/run.py
	scripts/ensure-redis
	$(PY) bench/scale.py
	$(PY) bench/search_bench.py  # search over 100,000 messages and 10,000 files: minutes, most of them loading

# The seven use cases against the model set in the environment (OPENAI_BASE_URL, OPENAI_API_KEY, MODEL_*),
# in a fresh example workspace, capped (SMOKE_MAX_CALLS, SMOKE_MAX_DOLLARS); the report goes to var/smoke-report.md.
smoke: $(VENV)/.installed workspace
	$(PY) scripts/smoke.py

clean:
	rm -rf $(VENV) var
