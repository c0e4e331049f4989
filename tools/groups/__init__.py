"""Every tool group's module. Importing one registers its group and tools; add a new group's module here."""

from tools.groups import books, calendar, companies, contacts, docs, files, integrations, mail, projects, search  # noqa: F401,E501
