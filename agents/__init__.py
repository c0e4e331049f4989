"""Agents at work
==============

- **Models**: Agent (in `team/models.py`, below the records, since a company's handler and an agent's own project
  link to it; `agents.models` imports it, so `agents.models.Agent` is the same model. It moved with its table,
  `agents_agent`, in state only: `team/migrations/0001` and the relations' migrations touch no row); Conversation
  (an agent's one chat, its threads, and `outside` conversations of MCP apps); Message (numbered from 0 per
  conversation by the conversation's `next_seq` counter, taken with one UPDATE … RETURNING that also makes
  concurrent appenders take turns); MemoryLine; Work (a piece of work and where its answer goes: `requester` is the
  conversation that asked, none for the owner); ToolCall; Usage; Run.
- **Agent tools** (`agents/agent_tools.py`): hand_off (packet limits in `agents/runtime/packets.py`, 3 deep, no
  loops, the owner's words travel), remember, make_agent (Home with Undo), change_agent (checked),
  start/message/read/close_thread, zoom_memory, message_date, browse/find/use, a Mac agent's messages and reply; and
  from `routines/agent_tools.py` triggers and skills. Each is offered in the places `spec/tools.md` marks. They are
  tool registry declarations (tools/registry.py) whose `run(ctx, inp)` reads the turn or outside session as `ctx.host`;
  make_agent, change_agent and triggers return a `Done` that the pipeline records, and change_agent's and triggers'
  `replaces` is what the check reads. The dispatcher, `agents/runtime/agent_tools.py`, finds the tools a place
  holds, runs one through `tools.pipeline.run_tool` and keeps the result within `limits.TOOL_RESULT`, in what the
  turn records too.
"""
