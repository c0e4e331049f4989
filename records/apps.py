from django.apps import AppConfig


class RecordsConfig(AppConfig):
    """The owner's records' models (contacts, companies, projects, docs and their links), one app because their
    tables point at each other; the code over them is in contacts, companies and docs, above it."""

    name = "records"
    verbose_name = "Records"
    default_auto_field = "django.db.models.BigAutoField"
