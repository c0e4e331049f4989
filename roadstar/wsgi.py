"""The WSGI entry point, for a server that speaks only WSGI (no websockets, no /mcp: daphne serves asgi.py)."""

from django.core.wsgi import get_wsgi_application

from roadstar.settings import configure

configure(announce=True)
application = get_wsgi_application()
