"""Every tool group's module. Importing one registers its group and tools; add a new group's module here."""

from tools.groups import (  # noqa: F401
    books,
    calendar,
    companies,
    contacts,
    docs,
    files,
    filings,
    help,
    integrations,
    mail,
    newsfeed,
    projects,
    search,
    web,
    workspace,
)
