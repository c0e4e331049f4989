"""OutsideSession: what an outside app's call runs in, the way a Turn is what a chat's or thread's call runs in.

The agent tools (agents/agent_tools.py, routines/agent_tools.py) read a turn-like object as `ctx.host`: `org`,
`agent`, `actor`, `conversation`, `place`, `current_work()`, `pass_on()`, `keep()`, `tool_context()` and
`remember_loaded()`. This is that object for an app connected over MCP, built
afresh for each call from its token: nothing is kept in memory between calls, so any web process serves any
call.
"""

from __future__ import annotations

from agents.models import Agent, Conversation, Work
from agents.runtime.agent_tools import MAC, OUTSIDE, run_agent_tool
from agents.runtime.host import ToolHost
from core.actors import Actor
from mcp_server.models import McpToken
from tools.registry import ToolResult


class OutsideSession(ToolHost):
    """One call of an outside app, as the token's agent, in the token's OUTSIDE conversation.

    Permission. The owner's-yes check reads this conversation's own turns (`check_turns`): only the owner's
    words give permission, and an outside app carries none. What its user typed in the app never reaches
    Roadstar, and what the app sends (a tool's input, a hand-off's task) is the app's own words, not the
    owner's, however it is phrased; it is not stored as the owner's and the check never reads it as theirs. The
    conversation holds only the answers that came back to the app, which the check reads as what was read. So
    an action that needs the owner's yes (a change, a removal, a send to someone the owner hasn't named) comes
    back `not_done_yet`, and its ask waits for the owner on Home; once they say yes, the same action goes, once.
    What this connection made itself it may change freely, as a thread may change what its work made.
    """

    def __init__(self, token: McpToken):
        self.token = token
        self.org = token.organization
        self.agent = token.agent
        self.conversation: Conversation = token.conversation
        self.actor = Actor.for_agent(self.agent)
        # An agent set to run on the owner's Mac also reads its chat's messages here and replies to them.
        self.place = MAC if self.agent.runs_on == Agent.RunsOn.MAC else OUTSIDE
        self._work: Work | None = None
        self._work_read = False

    # --- what agent tools use ---------------------------------------------------------------------------------

    def current_work(self) -> Work | None:
        """The newest open piece of work of this conversation; usually none: an app's work is its own."""
        if not self._work_read:
            self._work = (
                Work.objects.filter(conversation=self.conversation, state=Work.State.OPEN)
                .select_related("requester")
                .order_by("-created_at")
                .first()
            )
            self._work_read = True
        return self._work

    def pass_on(self, requester_id) -> None:
        """Work passed on whole is answered by whoever does it now. An app gives no last reply that would mark
        its work passed later (as a Turn's does), so it is marked now."""
        work = self.current_work()
        if work is not None and work.requester_id == requester_id:
            Work.objects.filter(id=work.id, state=Work.State.OPEN).update(state=Work.State.PASSED)

    def keep(self) -> None:
        """Work was sent on and its answer comes back here; the app reads it when it next calls."""

    # --- running a call ---------------------------------------------------------------------------------------

    def run(self, name: str, arguments) -> ToolResult:
        """Run one agent tool the app called; every failure comes back in-band, as in a thread. None is the
        answer of a tool that may find nothing (a nullable read), sent to the app as JSON null."""
        if self.agent.paused:
            # The agent's budget holds wherever it works: past it, nothing of its runs until the owner raises it.
            return {
                "error": "forbidden",
                "message": f"{self.agent.name} is paused: it went past its monthly budget. "
                           f"{self.org.owner_first_name} can raise it on Home; nothing ran.",
            }
        return run_agent_tool(self, name, arguments if isinstance(arguments, dict) else {})
