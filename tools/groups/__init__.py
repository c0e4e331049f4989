"""Every tool group's module. Importing one registers its group and tools; add a new group's module here."""

from tools.groups import books, calendar, companies, contacts, docs, files, integrations, mail, projects  # noqa: F401
from tools.groups import workspace  # noqa: F401
