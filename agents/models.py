"""Agents at work: their conversations, messages, memory, pieces of work, tool calls, spend and runs.

The Agent row itself is `team.models.Agent` (below the records, which link to it); it is imported here too, so
`agents.models.Agent` names the same model.
"""

import uuid

from django.db import models

from team.models import Agent


class Conversation(models.Model):
    """An agent's chat (one per agent) or one of its threads: a long-lived workstream with its own memory.

    `state` is the run queue, kept in the database so that the limits hold across many worker processes:
    idle -> queued (it has messages to act on) -> running (a worker holds it) -> idle. Only threads count
    towards the running limits; a chat runs whenever it has something to act on.
    """

    class Kind(models.TextChoices):
        CHAT = "chat"
        THREAD = "thread"
        # An outside AI app or a Mac program connected over MCP: it keeps its own conversation and runs no turns
        # here; answers to work it handed off wait in this conversation for it to read.
        OUTSIDE = "outside"

    class State(models.TextChoices):
        IDLE = "idle"
        QUEUED = "queued"
        RUNNING = "running"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="conversations")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    title = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.IDLE)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Tools loaded with find_tools stay loaded for the rest of the thread.
    loaded_tools = models.JSONField(default=list, blank=True)
    # A routine's own thread; set by the routines app.
    routine_id = models.CharField(max_length=64, blank=True)
    # Steps taken on the current piece of work (a thread answers with what it has at the limit).
    steps_on_work = models.PositiveIntegerField(default=0)
    # The seq the next message gets: taken with one UPDATE … RETURNING (agents.services.message_append), which also
    # makes concurrent writers of one conversation take turns (the row stays locked until their commit).
    next_seq = models.PositiveIntegerField(default=0)
    # The claim's lease on a running conversation: the worker running its turn renews `lease_until`; once it has
    # passed, the worker is taken for dead and the conversation is claimed again with a new token. Every write of
    # the turn checks the token, so a worker that was only slow can't write a step after the new one took over.
    lease_token = models.UUIDField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["agent"], condition=models.Q(kind="chat"), name="one_chat_per_agent"
            ),
        ]
        indexes = [models.Index(fields=["organization", "kind", "state", "queued_at"], name="conversation_queue_idx")]

    def __str__(self):
        return f"{self.agent.name}: {self.title or self.kind}"


class Message(models.Model):
    """One message of a conversation, numbered from 0 in order: what the model reads, and what memory folds."""

    class Role(models.TextChoices):
        OWNER = "owner"  # the owner's own words
        AGENT = "agent"  # the agent's reply, possibly with tool calls
        TOOL = "tool"  # a tool's result, answering one tool call
        HANDOFF = "handoff"  # a packet from another agent (or from a chat to its thread)
        ANSWER = "answer"  # an answer coming back from a thread or another agent
        ROUTINE = "routine"  # a routine run's message
        SYSTEM = "system"  # Roadstar's own notes to the agent (an app was connected, …)

    id = models.BigAutoField(primary_key=True)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    seq = models.PositiveIntegerField(help_text="The message's id within its conversation, from 0.")
    role = models.CharField(max_length=10, choices=Role.choices)
    text = models.TextField(blank=True)
    # Agent messages: the tool calls the model made; tool messages: the call id answered and the tool's name;
    # handoff/answer: who sent it and the owner's words it carries.
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation", "seq"]
        constraints = [models.UniqueConstraint(fields=["conversation", "seq"], name="message_seq_unique")]


class MemoryLine(models.Model):
    """A folded line of memory: the summary of messages start .. start+n-1 (n a power of two, start % n == 0)."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="memory_lines")
    start = models.PositiveIntegerField()
    n = models.PositiveIntegerField()
    summary = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["conversation", "start", "-n"]
        constraints = [models.UniqueConstraint(fields=["conversation", "start", "n"], name="memory_line_unique")]


class Work(models.Model):
    """One piece of work asked of a conversation, and where its answer goes when it is done.

    The owner's message to a chat, a packet handed to an agent, work a chat sends to a thread, a routine run.
    `requester` is the conversation the answer goes back to; none means the owner (the answer shows in the
    agent's chat and on Home). A chat that passes work on (to a thread, or to another agent with
    "whoever asked me") marks its own Work `passed`, and the new Work answers the original requester.
    """

    class State(models.TextChoices):
        OPEN = "open"
        ANSWERED = "answered"
        PASSED = "passed"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="work")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="work")
    requester = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="requested_work"
    )
    requested_by = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The agent that asked; none when the owner or a routine did.",
    )
    task = models.TextField()
    # The agents up the chain of hand-offs, nearest last: a hand-off to one of them is refused (a loop).
    chain = models.JSONField(default=list, blank=True)
    depth = models.PositiveSmallIntegerField(default=0)
    # The owner's own words that started the work, with when and where they said them.
    owner_words = models.JSONField(default=list, blank=True)
    # Threads started together with the same andThen answer once, together, when the last is in.
    and_then_group = models.UUIDField(null=True, blank=True)
    and_then = models.TextField(blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    answer = models.TextField(blank=True)
    latest_reply = models.TextField(blank=True)
    # Model steps taken on it, across every turn that worked on it: a thread has 40 on one piece of work.
    steps = models.PositiveIntegerField(default=0)
    # The seq of the message that brought it, in its conversation: a reply answers only work whose message its
    # prompt held, and memory never folds an open piece of work's message (none: brought by no message).
    seq = models.PositiveIntegerField(null=True, blank=True)
    # When it was sent on with its answer coming back here (hand_off to "me", a thread with andThen): routed, so
    # not a message left without an answer or a route, though still open.
    routed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "-created_at"], name="work_home_idx")]
        verbose_name = "piece of work"
        verbose_name_plural = "pieces of work"


class ToolCall(models.Model):
    """A tool call the model made, recorded before it runs and given its result after.

    A worker that dies mid-turn picks the turn up again; a call whose result is recorded is not run again.
    """

    id = models.BigAutoField(primary_key=True)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="tool_calls")
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="tool_calls")
    call_id = models.CharField(max_length=100)
    name = models.CharField(max_length=80)
    arguments = models.JSONField(default=dict)
    result = models.JSONField(null=True, blank=True)
    # Set (and committed) before a call that may change something in an app runs with no transaction open: a worker
    # that finds it set and no result died mid-call, and answers unknown_outcome rather than run it twice.
    started_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "call_id"], name="tool_call_unique")]


class Usage(models.Model):
    """One model call's tokens and cost, for budgets and for the owner to see spend."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="usage")
    conversation = models.ForeignKey(Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    purpose = models.CharField(max_length=20, default="turn", help_text="turn, memory, check or routine match.")
    model = models.CharField(max_length=40)
    input_tokens = models.PositiveIntegerField(default=0)
    cached_input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    # Eight places: a cached Luna token costs $0.00000001, and budgets add these rows up.
    cost = models.DecimalField(max_digits=16, decimal_places=8, default=0)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["agent", "at"], name="usage_agent_at_idx")]
        verbose_name_plural = "usage"


class Run(models.Model):
    """One turn of a conversation as a worker ran it: when, and how it ended. Home's Try again starts another."""

    class Outcome(models.TextChoices):
        RUNNING = "running"
        ANSWERED = "answered"
        WAITING = "waiting"  # it sent work on and waits for an answer
        FAILED = "failed"  # the model could not be reached after every try
        NO_MODEL = "no_model"
        PAUSED = "paused"  # the agent went past its budget
        CONTINUED = "continued"  # a chat used its steps with messages still to route: another turn goes on
        INTERRUPTED = "interrupted"  # its worker stopped renewing the lease (died): the conversation was handed on

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("roadstar.Organization", on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="runs")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, default=Outcome.RUNNING)
    steps = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at"]
