from django.apps import AppConfig


class ResearchConfig(AppConfig):
    """The optional research tools' own data: SEC filings fetched from EDGAR, and the newsfeed's feeds and stories."""

    name = "research"
    default_auto_field = "django.db.models.BigAutoField"
