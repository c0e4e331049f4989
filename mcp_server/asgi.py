"""/mcp in the ASGI app: the MCP server beside Django and Channels, its session manager started on first use.

The SDK's app needs its session manager running (`session_manager.run()`, which holds the task group requests
are served in). Its own Starlette app enters it in its ASGI lifespan, but daphne sends no lifespan, and a mounted
app's lifespan never runs anyway. So the first request on an event loop starts it: a background task enters
`run()` and stays in it for the life of the loop. A manager runs only once, and its task group belongs to one
loop, so each event loop gets its own app and manager (one in production; each test's loop in the tests).
"""

from __future__ import annotations

import asyncio
import logging
import threading

logger = logging.getLogger(__name__)

WELL_KNOWN = "/.well-known/oauth-protected-resource"
# The authorization server's metadata (RFC 8414) and endpoints, the SDK's, at the issuer's root.
AUTH_SERVER_PATHS = ("/.well-known/oauth-authorization-server", "/authorize", "/token", "/register", "/revoke")


def is_mcp_path(path: str) -> bool:
    return path == "/mcp" or path in AUTH_SERVER_PATHS or path.startswith(("/mcp/", WELL_KNOWN))


class _Running:
    """One event loop's MCP app, with its session manager running in a task of that loop."""

    def __init__(self):
        # Late on purpose: the MCP SDK (and Starlette) load on the first /mcp request, not with every ASGI app.
        from mcp_server.server import build_app

        self.app, self.server = build_app()
        self.ready = asyncio.Event()
        self.failed: BaseException | None = None
        self.task = asyncio.get_running_loop().create_task(self._run(), name="mcp session manager")

    async def _run(self):
        try:
            async with self.server.session_manager.run():
                self.ready.set()
                await asyncio.Future()  # until the loop ends, which cancels this task
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # a request must not wait forever for a manager that died
            logger.exception("the MCP session manager stopped")
            self.failed = error
            self.ready.set()


class McpEndpoint:
    """The ASGI app for the MCP paths: starts this loop's session manager if it isn't running, then serves."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running: dict[asyncio.AbstractEventLoop, _Running] = {}

    def _for_this_loop(self) -> _Running:
        loop = asyncio.get_running_loop()
        with self._lock:
            running = self._running.get(loop)
            if running is None or running.failed is not None or running.task.done():
                for old in [lp for lp in self._running if lp.is_closed()]:
                    del self._running[old]
                running = self._running[loop] = _Running()
        return running

    async def __call__(self, scope, receive, send):
        running = self._for_this_loop()
        await running.ready.wait()
        if running.failed is not None:
            raise RuntimeError("The MCP session manager couldn't start") from running.failed
        await running.app(scope, receive, send)


mcp_endpoint = McpEndpoint()


def with_mcp(app):
    """Wrap the HTTP app: the MCP paths go to the MCP server, everything else to `app` (Django)."""

    async def route(scope, receive, send):
        if scope["type"] == "http" and is_mcp_path(scope.get("path", "")):
            await mcp_endpoint(scope, receive, send)
        else:
            await app(scope, receive, send)

    return route
