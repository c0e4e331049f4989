# The README's two commands: `make run` starts Roadstar on the example workspace, `make test` runs the suite.
# Both set everything up on a fresh machine: a .venv with Python 3.12, the pinned requirements, the database.

VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: run serve test test-postgres bench migrate seed clean

$(VENV)/.python:
	@python=$$(scripts/find-python) && "$$python" -m venv $(VENV) && echo "$$python" > $@

$(VENV)/.installed: $(VENV)/.python requirements.txt
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

run: seed
	$(PY) manage.py schedule_ticks
	@echo "Starting Roadstar at http://127.0.0.1:$(PORT) (web and worker; Ctrl-C stops both)"
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PORT=$(PORT) $(VENV)/bin/honcho start

# Production (README, "Running in production"): the same two processes without the example workspace. The
# settings module is chosen from ROADSTAR_ENV / ALLOWED_HOSTS and refuses to start without what it needs.
serve: migrate
	$(PY) manage.py schedule_ticks
	@echo "Starting Roadstar on $${BIND_ADDRESS:-127.0.0.1}:$(PORT) (web and worker; Ctrl-C stops both)"
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PORT=$(PORT) $(VENV)/bin/honcho start

# The browser tests drive Debian's Chromium: ensure-chromium installs it where it is missing (apt-get, as root).
# They share one running stack, so they stay together on one worker (loadgroup; the rest spread as with load).
# ruff (ruff.toml) runs first: a lint finding fails the build before the suite starts.
test: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	scripts/ensure-chromium
	$(PY) -m pytest -q -n 2 --dist loadgroup

bench: $(VENV)/.installed-dev
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) var
