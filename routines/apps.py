from django.apps import AppConfig


class RoutinesConfig(AppConfig):
    name = "routines"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # ready(): the app registry isn't ready when apps.py is imported
        from agents.runtime.instructions import skill_names_register
        from agents.signals import work_answered
        from integrations.signals import event_recorder_register

        work_answered.connect(_work_answered, dispatch_uid="routines.work_answered")
        # The agents and integrations apps, below, are given what they need of routines rather than importing it.
        # (Triggers and skills, the agent tools, are found by name: routines/agent_tools.py.)
        skill_names_register(_skill_names)
        event_recorder_register(_event_emit)


def _work_answered(sender, work, text, **kwargs):
    # Imported when called, as the wrappers below are (why: above them).
    from routines import engine, services

    services.routine_run_finished(work=work)
    engine.summary_finished(work=work, text=text)


# The wrappers import when called: apps.py is read before the models are, and routines.engine and services load
# the agent runtime, which django.setup() should not.
def _skill_names(*, agent) -> list[str]:
    # Imported when called: see above.
    from routines.services import skill_names

    return skill_names(agent=agent)


def _event_emit(**kwargs):
    # Imported when called: see above.
    from routines.engine import event_emit

    return event_emit(**kwargs)
