"""The error envelope every tool failure comes back in: `{error, message, card?}`, never an exception."""

from __future__ import annotations

from typing import Any, Literal, get_args

# The 12 kinds of spec/reference/errors.md, and nothing else.
ErrorKind = Literal[
    "not_connected",
    "reauth",
    "forbidden",
    "not_found",
    "rate_limited",
    "unavailable",
    "too_large",
    "unsupported",
    "bad_input",
    "vendor",
    "changed",
    "unknown_outcome",
]
ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)


class ToolError(Exception):
    """Raised by services and tools for a failure the agent should read; `use_tool` returns it as JSON."""

    def __init__(self, kind: ErrorKind, message: str, *, card: str | None = None) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"{kind!r} is not one of the spec's error kinds")
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.card = card

    def as_result(self) -> dict[str, Any]:
        result = {"error": self.kind, "message": self.message}
        if self.card is not None:
            result["card"] = self.card
        return result


def not_found(what: str, value: object) -> ToolError:
    return ToolError("not_found", f"No {what} with id {value} in this workspace.")


def bad_input(field: str, problem: str) -> ToolError:
    return ToolError("bad_input", f"{field}: {problem}")


# SQLite's "database is locked" after its busy timeout; PostgreSQL's lock and statement timeouts.
_BUSY_WORDS = ("database is locked", "database table is locked", "lock timeout", "could not obtain lock")


def is_busy(error: BaseException) -> bool:
    """An OperationalError that says the database was busy (another process held the lock too long)."""
    text = str(error).lower()
    return any(words in text for words in _BUSY_WORDS)


def busy_error() -> ToolError:
    return ToolError("unavailable", "Roadstar's database is busy with other work right now: busy, try again in a "
                                    "moment. Nothing was done.")
