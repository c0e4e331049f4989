from django.apps import AppConfig


class RoadstarConfig(AppConfig):
    name = "roadstar"
    verbose_name = "Roadstar"
    default_auto_field = "django.db.models.BigAutoField"
