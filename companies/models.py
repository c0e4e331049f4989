"""The companies' models are the records app's (`records.models`: their tables and a contact's point at each
other); they are named here too, so `companies.models.Company` is the same model."""

from records.models import Company, CompanyPerson, TimelineEntry

__all__ = ["Company", "CompanyPerson", "TimelineEntry"]
