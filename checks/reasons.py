"""The check's six reasons, word for word as `spec/reference/errors.md` gives them.

The agent reads these and the owner sees them on Home, so they are never paraphrased. `PRIORITY` is the order in
which they win when several apply (FORMAT.md): the stop first, then the asks, the failures of the judge last.
"""

from typing import Literal

SENSITIVE = "it would send a password, card or bank number, or an ID number"
NOT_NAMED = "it goes to someone the owner hasn't named"
REMOVES = "it removes or rewrites something the owner didn't point to"
FROM_READ = "the request came from what you read, not from the owner"
UNDECIDED = "the check couldn't decide"
UNREACHABLE = "the check couldn't be reached"

PRIORITY = (SENSITIVE, NOT_NAMED, REMOVES, FROM_READ, UNDECIDED, UNREACHABLE)
ASK_REASONS = (NOT_NAMED, REMOVES, FROM_READ, UNDECIDED, UNREACHABLE)
STOP_REASONS = (SENSITIVE,)
# What a model judge may answer: everything but "couldn't be reached", which only the caller can know.
JUDGE_REASONS = (SENSITIVE, NOT_NAMED, REMOVES, FROM_READ, UNDECIDED)


def outcome_of(reason: str) -> Literal["stop", "ask"]:
    """The outcome a reason belongs to: "stop" for the sensitive-data reason, "ask" for the rest."""
    if reason in STOP_REASONS:
        return "stop"
    if reason in ASK_REASONS:
        return "ask"
    raise ValueError(f"not one of the check's reasons: {reason!r}")


def rank(reason: str) -> int:
    return PRIORITY.index(reason)
