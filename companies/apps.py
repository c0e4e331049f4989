from django.apps import AppConfig


class CompaniesConfig(AppConfig):
    name = "companies"
    default_auto_field = "django.db.models.BigAutoField"
