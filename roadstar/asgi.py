"""The ASGI entry point daphne serves: Django's views over HTTP, and (as they arrive) websockets and /mcp."""

from django.core.asgi import get_asgi_application

from roadstar.settings import configure

# The web process is the one that says the development key is in use: once per `make run`, not once per command.
configure(announce=True)
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (Django must be set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from home.routing import websocket_urlpatterns  # noqa: E402
from mcp_server.asgi import with_mcp  # noqa: E402

# HTTP: /mcp and /.well-known/oauth-protected-resource* go to the MCP server, the rest to Django.
# Websockets (the live Home, /ws/home/): the signed-in session, from a page of one of ALLOWED_HOSTS only.
application = ProtocolTypeRouter({
    "http": with_mcp(django_asgi_app),
    "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
