"""Who did something: an agent, the owner (a user), or the system. Every service takes one explicitly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agents.models import Agent

ActorKind = Literal["agent", "user", "system"]


@dataclass(frozen=True)
class Actor:
    kind: ActorKind
    id: str
    name: str
    agent: Agent | None = None

    @classmethod
    def for_agent(cls, agent: Agent) -> Actor:
        return cls(kind="agent", id=str(agent.id), name=agent.name, agent=agent)

    @classmethod
    def for_user(cls, user) -> Actor:
        return cls(kind="user", id=str(user.pk), name=user.get_full_name() or user.get_username())

    @classmethod
    def system(cls) -> Actor:
        return cls(kind="system", id="system", name="Roadstar")

    def by(self) -> dict:
        """The spec's `by: { kind, id }`."""
        return {"kind": self.kind, "id": self.id}
