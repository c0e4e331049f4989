from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Held emails show on Home with their countdown: the mail hold registers itself as a held-lines source.
        from integrations import mail_hold  # noqa: F401
