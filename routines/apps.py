from django.apps import AppConfig


class RoutinesConfig(AppConfig):
    name = "routines"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agents.signals import work_answered

        work_answered.connect(_work_answered, dispatch_uid="routines.work_answered")


def _work_answered(sender, work, text, **kwargs):
    from routines import engine, services

    services.routine_run_finished(work=work)
    engine.summary_finished(work=work, text=text)
