from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    # What this app hands the layers below it (Home's held emails, the contacts' timeline) is in hooks.py.
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"
