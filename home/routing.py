"""Websocket routes, mounted in asgi.py behind the session (AuthMiddlewareStack) and the Origin check."""

from typing import Any

from django.urls import path

from home.consumers import LiveConsumer

# channels routes ASGI apps with Django's path() (its documented way), which django-stubs types for HTTP views only;
# the list is what channels' URLRouter takes.
websocket_urlpatterns: list[Any] = [
    path("ws/home/", LiveConsumer.as_asgi()),  # type: ignore[arg-type]  # an ASGI app, not an HTTP view (above)
]
