from django.apps import AppConfig


class RoutinesConfig(AppConfig):
    # What this app hands the layers below it (skill names, the apps' event recorder) is in hooks.py; its triggers
    # and skills, the agent tools, are in agent_tools.py.
    name = "routines"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # ready(): the app registry isn't ready when apps.py is imported
        from agents.signals import work_answered

        work_answered.connect(_work_answered, dispatch_uid="routines.work_answered")


def _work_answered(sender, work, text, **kwargs):
    # Imported when called: routines.engine and services load the agent runtime, which django.setup() should not.
    from routines import engine, services

    services.routine_run_finished(work=work)
    engine.summary_finished(work=work, text=text)
