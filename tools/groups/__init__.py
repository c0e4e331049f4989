"""Every tool group's module. Importing one registers its group and tools; add a new group's module here."""

from tools.groups import companies, contacts, docs, integrations, projects  # noqa: F401
