"""Who did something: an agent, the owner (a user), or the system. Every service takes one explicitly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from django.db import models

ActorKind = Literal["agent", "user", "system"]


@dataclass(frozen=True)
class Actor:
    kind: ActorKind
    id: str
    name: str
    # The agents app's Agent when an agent acts. Typed as a model: core, the bottom layer, can't import agents.
    agent: models.Model | None = None

    @classmethod
    def for_agent(cls, agent: Any) -> Actor:
        return cls(kind="agent", id=str(agent.id), name=agent.name, agent=agent)

    @classmethod
    def for_user(cls, user: Any) -> Actor:
        return cls(kind="user", id=str(user.pk), name=user.get_full_name() or user.get_username())

    @classmethod
    def system(cls) -> Actor:
        return cls(kind="system", id="system", name="Roadstar")

    def by(self) -> dict[str, Any]:
        """The spec's `by: { kind, id }`."""
        return {"kind": self.kind, "id": self.id}
