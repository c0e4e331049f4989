"""Websocket routes, mounted in asgi.py behind the session (AuthMiddlewareStack) and the Origin check."""

from django.urls import path

from home.consumers import LiveConsumer

websocket_urlpatterns = [
    path("ws/home/", LiveConsumer.as_asgi()),
]
