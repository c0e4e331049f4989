"""The check's boundary: what it is shown (`CheckRequest`) and what it answers (`Decision`).

Both are plain data in the shape of a check case (`shared/check-cases/FORMAT.md`), so the live pipeline and
`check_eval` run the very same code: the pipeline builds a request from the database, `check_eval` from a case.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from checks import reasons

Outcome = Literal["go", "ask", "stop"]
# "owner": no judge is set up, and the owner chose to let run what the rules can't decide.
DecidedBy = Literal["rules", "judge", "off", "owner"]


class _Data(BaseModel):
    # Cases written elsewhere may carry fields we don't read; they must not make a case unreadable.
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class Business(_Data):
    name: str
    owner: str = Field(description="The owner's full name, such as 'Sam Rivera'.")
    owner_email: str = ""
    domains: list[str] = []
    payment_details: list[str] = Field(default=[], description="The business's own details, which may be sent.")

    @property
    def owner_first_name(self) -> str:
        return (self.owner.split() or ["the owner"])[0]


class ContactRecord(_Data):
    id: str
    name: str
    emails: list[str] = []
    company: str | None = None
    always_ask: bool = Field(default=False, alias="alwaysAsk")


class Records(_Data):
    contacts: list[ContactRecord] = []
    made_here: list[str] = Field(default=[], description="`<kind>:<id>` of what this same piece of work made.")


class OwnerTurn(_Data):
    role: Literal["owner"]
    text: str
    # Which of the owner's words these are ("message:<id>", "ask:<id>"), where the workspace knows: a yes in them is
    # spent by the run it lets go (checks/spend.py). Cases leave it out; the rules never read it.
    ref: str = ""


class RoutineTurn(_Data):
    role: Literal["routine"]
    name: str = ""
    text: str


class QuotedOwnerWords(_Data):
    text: str
    where: str = ""
    at: str | None = None
    ref: str = ""  # as OwnerTurn's


class HandoffTurn(_Data):
    role: Literal["handoff"]
    from_: str = Field(default="", alias="from")
    task: str = ""
    notes: str = ""
    owner_words: list[QuotedOwnerWords] = []


class ReadTurn(_Data):
    role: Literal["read"]
    source: str = ""
    text: str


class AgentTurn(_Data):
    role: Literal["agent"]
    text: str


TURN_MODELS = (OwnerTurn, RoutineTurn, HandoffTurn, ReadTurn, AgentTurn)
Turn = Annotated[OwnerTurn | RoutineTurn | HandoffTurn | ReadTurn | AgentTurn, Field(discriminator="role")]
# Turns as FORMAT.md gives them (dicts) made the check's models: a turn holds its conversation so, validated once a
# message (agents.runtime.turn), not again at each checked call (checks.selectors.request_for_workspace).
CONVERSATION: TypeAdapter[list[Turn]] = TypeAdapter(list[Turn])


class Action(_Data):
    tool: str
    input: dict[str, Any] = {}
    replaces: Any = Field(default=None, description="What the action would overwrite or remove, with its name.")
    note: str | None = Field(default=None, description="A note the tool carries for the check, such as a cost.")


class CheckRequest(_Data):
    business: Business
    records: Records = Records()
    conversation: list[Turn] = []
    action: Action

    @classmethod
    def from_case(cls, case: dict[str, Any]) -> CheckRequest:
        """Only what the check may see: never a case's `id`, `group` or `expect`. A case's `judge_fault` is the
        evaluation's business (`checks.evaluation.FaultyJudge`), not the check's: the live check never sees one."""
        shown = {k: case[k] for k in ("business", "records", "conversation", "action") if k in case}
        return cls.model_validate(shown)


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    reason: str | None = None
    relied_on: list[str] = Field(default=[], description="The owner's and routines' words the decision relied on.")
    decided_by: DecidedBy = "rules"
    judge_used: bool = False

    @model_validator(mode="after")
    def _reason_fits_outcome(self) -> Decision:
        if self.outcome == "go":
            if self.reason is not None:
                raise ValueError("a go has no reason")
        elif self.reason is None or reasons.outcome_of(self.reason) != self.outcome:
            raise ValueError(f"{self.reason!r} is not a reason to {self.outcome}")
        return self

    def as_tool_result(self, owner_first_name: str) -> dict[str, Any] | None:
        """What `use_tool` returns instead of running the tool (errors.md, word for word); None when it runs."""
        if self.outcome == "ask":
            return {
                "not_done_yet": f"Check with {owner_first_name} first: {self.reason}. Ask in your reply, saying "
                "what you would do. Once they say yes, do it again."
            }
        if self.outcome == "stop":
            return {"refused": f"Not done: {self.reason}. Tell {owner_first_name}, and don't try another way."}
        return None
