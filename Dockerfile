# Roadstar's image: one image for both processes. The web runs daphne (the default command); the worker runs
# `python manage.py worker` (compose.yaml). Production settings: it needs SECRET_KEY, ALLOWED_HOSTS and
# ROADSTAR_TOKEN_KEY from the environment, and DATABASE_URL (PostgreSQL) and REDIS_URL when it runs on more than one
# machine (README, "More than one machine").
FROM python:3.12-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ROADSTAR_ENV=production \
    BIND_ADDRESS=0.0.0.0 \
    PORT=8000

# bubblewrap, python3 and nodejs: the agents' sandboxed workspace (workspace/sandbox.py); libpq for psycopg.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap python3 python3-venv nodejs libpq5 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt requirements-workspace.txt ./
RUN pip install -r requirements.txt \
    && python3 -m venv var/workspace-venv \
    && var/workspace-venv/bin/pip install -r requirements-workspace.txt

COPY . .
RUN useradd --create-home --uid 1000 roadstar \
    && SECRET_KEY=build-only ALLOWED_HOSTS=localhost ROADSTAR_ENV=development python manage.py collectstatic --noinput \
    && chown -R roadstar /app/var
USER roadstar

EXPOSE 8000
# The web process; the worker overrides it (compose.yaml). `exec` form: signals reach the process itself.
CMD ["sh", "-c", "exec daphne -b \"$BIND_ADDRESS\" -p \"$PORT\" roadstar.asgi:application"]
