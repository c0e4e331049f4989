"""Every limit on text that reaches an agent's prompt, in one place.

The spec's (spec/reference/limits.md) come first; the rest are Roadstar's own, for text the spec sets no limit on
(notes, the About, skills, routines, messages, a tool's result). Each is enforced where the text comes in (the
tool's input and the service behind it), past it the caller gets `bad_input` naming the input and the limit, and
nothing is cut or saved. Together they bound an agent's instructions and each message of its memory, whatever
agents, apps or the owner write.
"""

from __future__ import annotations

# --- the spec's -------------------------------------------------------------------------------------------------

PACKET_TASK = 600  # a packet's task: hand_off, start_thread, message_thread
PACKET_NOTES = 2_000  # a packet's notes
PACKET_LINKS = 20  # a packet's links
JOB_DESCRIPTION = 600  # owns, good, works and asksFirst together: make_agent, change_agent
READ_THREAD_BYTES = 32_000  # what read_thread shows from the top
PROJECT_NAME = 120  # projects.create and projects.update, and the REST API's
PROJECT_DESCRIPTION = 4_000

# --- Roadstar's own ---------------------------------------------------------------------------------------------

AGENT_NAME = 80  # make_agent's and change_agent's name, and any input naming an agent
AGENT_JOB = 300  # its job in one line
AGENT_DEPARTMENT = 80
PACKET_LINK = 2_000  # each of a packet's links (a web: link is the longest kind)
THREAD_TITLE = 200
AND_THEN = 600  # start_thread's andThen: what to do once every thread answers, like a task

NOTE = 500  # one of an agent's notes (remember): a short note on how the owner likes the work done
NOTES_TOTAL = 5_000  # all of an agent's notes together, as its instructions carry them
ABOUT = 5_000  # the About, which every agent's instructions carry

SKILL_NAME = 80
SKILL_ABOUT = 300  # when it applies, in one line
SKILL_STEPS = 8_000  # the steps: a skill is read whole into a thread when it is used
SKILL_WHY = 500  # why it changed, in a line the owner reads
SKILLS_PER_AGENT = 50  # every one is named in the agent's instructions

ROUTINE_NAME = 200
ROUTINE_NOTE = 2_000  # what to do when it fires, carried by every run's message, as a packet's notes
ROUTINE_ASK = 2_000  # when.ask: words checked against each new email and document (the matcher reads its head)
ROUTINE_FILTER = 2_000  # filter, as JSON

MESSAGE = 20_000  # what the owner writes in a chat or answers on Home (the web), or a program sends (REST, MCP)
DOC_NOTE = 4_000  # the owner's note on a doc (its page, the REST API)
DOC_NOTE_ON = 2_000  # the doc's words a note is on
TEMPLATE_ANSWER = 300  # one answer to a template's question, as it is written into the texts
CONTACT_FIELDS = 50  # named values on a contact (birthday), and named facts on a company (Terms)
FIELD_NAME = 100
FIELD_VALUE = 2_000  # as JSON
DETAIL_VALUE = 1_000  # a company's named fact, such as Terms

TOOL_RESULT = 200_000  # a tool's result, as the model reads it; past it: too_large, ask for less
