"""The live Home's websocket: one per open page, in the signed-in owner's workspace group and no other.

The browser opens /ws/home/ with its session cookie (AuthMiddlewareStack reads it; the Origin must be one of
ALLOWED_HOSTS). An anonymous socket, or a user with no workspace, is refused before it is accepted. Each
`live.notify` reaches it as `{"what": …, "conversation": …}`, and the page fetches its fresh part over HTTP.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.exceptions import ObjectDoesNotExist

from core import live

REFUSED_ANONYMOUS = 4401
REFUSED_NO_WORKSPACE = 4403


@database_sync_to_async
def _workspace_id(user):
    try:
        return user.organization.id
    except ObjectDoesNotExist:
        return None


class LiveConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=REFUSED_ANONYMOUS)
            return
        org_id = await _workspace_id(user)
        if org_id is None:
            await self.close(code=REFUSED_NO_WORKSPACE)
            return
        self.group = live.group_name(org_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        # The page only listens; a ping keeps proxies from closing an idle socket.
        if isinstance(content, dict) and content.get("ping"):
            await self.send_json({"pong": True})

    async def live_update(self, event):
        await self.send_json({"what": event.get("what"), "conversation": event.get("conversation")})
