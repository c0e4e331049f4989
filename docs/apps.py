from django.apps import AppConfig


class DocsConfig(AppConfig):
    name = "docs"
    verbose_name = "Docs and projects"
    default_auto_field = "django.db.models.BigAutoField"
