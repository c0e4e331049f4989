from django.apps import AppConfig


class RoutinesConfig(AppConfig):
    name = "routines"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agents.runtime.instructions import skill_names_register
        from agents.signals import work_answered
        from integrations.signals import event_recorder_register
        from routines import agent_tools  # noqa: F401  (triggers and skills register as agent tools on import)
        from routines.engine import event_emit
        from routines.services import skill_names

        work_answered.connect(_work_answered, dispatch_uid="routines.work_answered")
        # The agents and integrations apps, below, are given what they need of routines rather than importing it.
        skill_names_register(skill_names)
        event_recorder_register(event_emit)


def _work_answered(sender, work, text, **kwargs):
    from routines import engine, services

    services.routine_run_finished(work=work)
    engine.summary_finished(work=work, text=text)
