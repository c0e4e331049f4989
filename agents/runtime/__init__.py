"""The queue, the turn, its lease, memory, models
==============================================

- **The run queue** (`agents/runtime/scheduler.py`) lives in the database: a conversation with new input is
  `queued`; `claim` takes queued ones in order while at most 3 threads of one agent and 8 across the workspace run,
  with the workspace row locked (PostgreSQL's FOR NO KEY UPDATE: a transaction inserting a row that names the
  workspace takes its foreign key's KEY SHARE at commit without waiting for a claim) or inside SQLite's IMMEDIATE
  transaction (which holds the write lock from BEGIN, so no lock statement there); the queued conversations, the
  running threads and their agents' pause are one read; each claimed one becomes a django-q2 task, queued in the
  claim's own transaction (`dispatch`), so no conversation is left claimed without a task by a process that dies
  between them (inline, under Q_SYNC, the task runs after the claim's commit: it is the whole turn, which calls
  out). Chats don't count towards the limits. `turn.drain` runs the queue in-process (tests). A turn's last look for new
  input and its hand-back (`finish`) share one transaction with the conversation's row locked, the lock the owner's
  message is appended and woken under, so a message is never left between them. That look reads the conversation's
  counter under the lock: when nothing was appended since the turn's last read, the messages the turn holds answer
  it (`Turn.input_waits_at`), else `has_new_input` reads them. A message appended while the model writes a step
  takes a seq before the step's own, though the step never saw it: the step keeps `saw_upto` (the last seq its
  prompt held) in its data, `input_waits` and `has_new_input` count what came after that as unanswered, and the
  prompt shows the step right after what it saw (`in_the_order_written`), so the owner's second message, sent while
  the first is answered, gets its own answer.
- **A turn is a loop over its storage**: `agents/runtime/turn.py` holds the loop only (`run_turn`, the worker's
  task, claims and calls `run_claimed(store)`, which runs `Turn.execute`), with no SQL in it; everything it reads
  and writes goes through `storage.TurnStorage`, a Protocol the runtime owns, whose fenced writes raise `LeaseLost`.
  `sql_storage.SqlTurnStorage` is the database's (its statements, `locked_counter`'s FOR UPDATE, `answer_work`,
  the Try again card); `tests/agents/test_turn_loop.py` runs the loop on an in-memory one, with no database.
  `messages.py` is the prompt's pure logic (`PromptMessages`, `input_waits`), `check_turns.py` the conversation as
  the check reads it, `host.py` the `ToolHost` that `core.context.Host` (a Protocol) stands for below agents. Within
  agents the imports run models, model/messages/check_turns, scheduler, services, memory, host, storage,
  sql_storage, turn: no cycle.
- **What a turn does** (`agents/runtime/turn.py` over `sql_storage.py`): fold memory (only at the start, so step
  prompts share their prefix; the system prompt and the tool list are made once a turn, the history read once; the
  turn holds its own messages as they commit and converts only the new ones into the prompt, and each step reads the
  conversation's counter and the agent's pause in one query, and the messages another process appended only when the
  counter is past what it holds; the check's view of the conversation is held for the turn too: a step costs 10
  queries at step 20 as at 60, on SQLite and PostgreSQL, `tests/agents/test_step_cost.py`, listed in
  `bench/PERFORMANCE.md`; the step's own statements, its messages and seqs, usage, tool call and result, the work's
  count and the counter's read, are made once a process and kept, not compiled by the ORM each time: `core/rows.py`,
  which leaves a model with save receivers to the ORM; so are the turn's own reads and plain updates at its start
  and end, the claim included (`rows.select`, `rows.update`: plain comparisons, every column, foreign keys joined as
  select_related does, tested against the ORM's rows); what the turn holds answers what it would otherwise read
  again (whether input waits, calls left unrun, how many messages memory may fold: the counter), and `core/memo.py`
  keeps a read for one block of work, as browse_tools' description asks the five research groups for one settings
  row), then steps: the step's usage, its count on the work and the model's response with its tool calls commit in
  one transaction before any call runs; each call's writes commit with its recorded result, so a worker that dies
  mid-turn resumes without running a call twice. A step whose calls work on Roadstar's own records alone (reads,
  `agent_tools.only_reads_here`, the last perhaps a change, `only_here`) runs them first and is saved after, with
  their results, in one write: the last call's transaction where it writes (`Turn._step_after_calls`). A worker
  that dies before that commit leaves no trace of the step or its change, and the model is asked again. Calls that may
  call out or are checked (as declared: `use_tool`, `change_agent`, `triggers`, the memory readers) run with no
  transaction open, and their writes commit with the call's recorded result; one that may change something in an app
  is marked `started_at` (committed) first, and found started without a result it answers `unknown_outcome` rather
  than run again. A chat takes at most 4 steps a turn; a thread 40 on one piece of work, counted on the `Work`
  across every turn that worked on it (the last step is forced to answer). The reply answers the work the turn
  covered (`answer_work`, exactly once by a conditional update), unless the turn sent the work on: passed whole (the
  new work answers the original asker) or kept (the answer comes back here: hand_off to "me", `andThen`). Answers
  go to the requester as messages and wake it; for the owner they appear in the agent's chat.
- **Every owner message is answered exactly once** (the invariant the turn keeps; `tests/agents/
  test_every_message_answered.py` checks it over random arrival times against a scripted model, on SQLite and
  PostgreSQL). Each piece of work (`Work`) carries the seq of the message that brought it. A routing call
  (start_thread, message_thread, hand_off) routes one piece: the oldest whose message the step's prompt held and
  nothing routed yet, marked `passed` (or `routed_at`, its answer coming back) in the call's own transaction; a
  reply answers exactly the open, unrouted work its prompt held (`saw_upto`), never work it didn't see. The turn
  reads the open work again whenever another process's messages come in, so work arriving mid-turn is covered by the
  step that sees it. A chat at its 4th step with seen work still to route isn't forced to answer: it routes and goes
  on in another turn (`continued`, at most 5 in a row), keeping even a forced step's routing calls. Memory folds no
  message at or past the oldest open unrouted work's, nor past what the agent's last step saw (`turn.fold_limit`).
  So a turn ends only when every owner message is answered or routed, or queued again.
- **The turn's lease** (`scheduler.claim`, `LeaseKeeper`): a claim writes a new `lease_token` and `lease_until`
  (`ROADSTAR_TURN_LEASE_SECONDS`, 15; two of them while the task waits for a worker, as a killed cluster's pusher
  may hold tasks it never started); a thread of the worker renews it from the turn's start, every third; the task
  carries the token and a stale one does nothing. A lapsed lease is claimed again by the next claim in its
  workspace, by the worker main process's watch (every 5 s, `agents.tasks.watch`) or by the minute's sweep, and its
  run ends `interrupted`. Every message a turn appends takes the counter only under its token
  (`message_append(lease=)`, one statement), so a worker that was slow, not dead, writes no further step or call
  result; the broker's own redelivery (660 s) carries the old token. `tests/agents/test_turn_lease.py`, and
  `test_turn_lease_kill.py` (SIGKILL, PostgreSQL).
- **Memory** (`agents/runtime/memory.py`): blocks of 8 messages fold into lines like a binary counter; a prompt
  shows O(log N) lines and the newest 8–15 messages whole; summaries come from the cheapest model; zoom opens a line
  into halves, made on demand below the block size.
- **Models** (`agents/runtime/model.py`): `OpenAIModel` over the `openai` SDK to any compatible endpoint (one client
  a process, kept: making one costs TLS and pool setup before every request); a failed call (no answer, 429, 5xx, or
  a 200 that isn't a chat completion) is tried 5 times again, after 2, 4, 8, 16 and 32 seconds, then the work shows
  on Home with Try again (the card is written for the owner; the model's own error is in the log and the run, in the
  admin). A turn that breaks on a bug leaves the same card. `ScriptedModel` for tests. Every call's tokens and cost
  are a `Usage`; past its monthly budget an agent pauses with a Home card. Without a model the chat says how to
  connect one.

What a model reads and sends (issue 26)
---------------------------------------

- **Every input says what it is.** Each tool's module declares its inputs' words with `describe_inputs` (the spec's
  "What it is" column where it has one, the same plain style where not); `Tool.input_schema()` puts them in the
  schema find_tools, a turn's tool list and MCP's tools/list all send, and `load_all` refuses a tool with an input
  left undescribed. `triggers.when` is typed as its five kinds with their limits (routines/agent_tools.py), the
  service holding the same limits and naming the part it refuses.
- **What real models send** is read in the parsing and validation path, not the turn loop: `core/lenient_json.py`
  reads an object sent as a JSON string, a trailing comma or a fence, and answers a cut-off or broken body with the
  one-line fix (model.py keeps it with the call; use_tool reads its `input` the same way); a name that can only mean
  one tool (`functions.hand_off`, `Mail.Send`) runs it, a near one is named, a group's tool called directly says how
  to run it. A reply with no call that can't be an answer (empty, or only saying what it will do:
  `agents/runtime/replies.py`) gets a note to the agent and another step; one still empty stops with Try again.
- **Off groups stay listed**: browse_tools' description and its tools say an optional group is off and what turns it
  on (`Group.turn_on`); find_tools loads none of them and use_tool refuses them.
- **An ask routine's matching** asks again on a bad answer; when it can't (down, no model, bad answers) the event's
  keyed routines still fire and one Try again card a workspace holds the events to weigh again.
- **`make smoke`** (`scripts/smoke.py`, `roadstar/smoke.py`) plays the seven use cases against the configured model,
  capped, with a report; the suite plays it against an imperfect model (`tests/use_cases/`).
"""
