"""What the routines app hands the layers below it (core.registry): the agents app's instructions name an agent's
skills with routines' function, and the integrations app's events are recorded by routines' engine.

Each function imports its module when called: routines.engine and services load the agent runtime, which loading
the apps should not.
"""

from agents.runtime.instructions import SKILL_NAMES, SkillNames
from integrations.signals import EVENT_RECORDER, EventRecorder


def _skill_names(*, agent) -> list[str]:
    from routines.services import skill_names

    return skill_names(agent=agent)


def _event_emit(**kwargs):
    from routines.engine import event_emit

    return event_emit(**kwargs)


SKILL_NAMES.add(SkillNames("routines", _skill_names))
EVENT_RECORDER.add(EventRecorder("routines", _event_emit))
