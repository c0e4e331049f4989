"""The contacts' models are the records app's (`records.models`: their tables and a company's point at each other);
they are named here too, so `contacts.models.Contact` is the same model."""

from records.models import Contact, ContactEmail, LogEntry, OpenItem

__all__ = ["Contact", "ContactEmail", "LogEntry", "OpenItem"]
