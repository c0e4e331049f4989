"""The owner's yes
===============

The check works on pure data in the shape of a check case (`checks/types.py` `CheckRequest`: business, records,
conversation, action), so the live pipeline and `manage.py check_eval` share one path.
`checks/selectors.request_for_workspace` builds it from the database; `checks/rules.py` decides what rules can
(sensitive data via `checks/detectors.py`, recipients not named, removal not pointed at, requests that came from
what was read); `checks/judge.py` asks a cheap model (strict JSON) only for what the rules leave open and can only
make a decision stricter. Every decision is a `CheckDecision`; an ask is an `Ask` with the action's fingerprint. The
conversation the check reads comes from `agents.runtime.turn.check_turns`: only the owner's words, the owner's words
carried in packets, and routine notes give permission; tool results and answers are "read". What "this same piece of
work made" is scoped to the `Work` (`Change.work_id`). See `checks/SECURITY.md`. A yes covers one run (issue 24):
the owner's words carry a `ref` (their message, or `ask:<id>` for Home's answer) through packets into threads; a yes
typed in a chat answers the thread's one waiting `Ask` when `message_thread` carries it
(`checks.services.yes_from_chat`); Home's Yes and No go straight to the thread that asked
(`agents.services.answer_from_home`); the run a yes lets go spends it in the transaction that keeps the go (the
`Ask` by a conditional update, the words by a `SpentYes` row, `checks/spend.py`), and closes the action's other
asks.
"""
