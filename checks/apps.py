from django.apps import AppConfig


class ChecksConfig(AppConfig):
    name = "checks"
    verbose_name = "The owner's yes"
    default_auto_field = "django.db.models.BigAutoField"
