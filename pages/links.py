"""Where a doc's roadstar links go: `roadstar:contact/<id>` to that contact's page, when the workspace has it.

A kind with a page here (contact, company, doc, agent, project) links to it if the record is the workspace's;
kinds with no page of their own (email, file, invoice, bill, page, table), unknown kinds and ids the workspace
doesn't have stay plain text. Ids are checked one query per kind, however many links a doc holds.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.urls import reverse

from pages import selectors

PAGE_OF = {
    "contact": lambda id_: reverse("pages:contact", args=[id_]),
    "company": lambda id_: reverse("pages:company", args=[id_]),
    "doc": lambda id_: reverse("pages:doc", args=[id_]),
    "agent": lambda id_: reverse("pages:agents") + f"#agent-{id_}",
    "project": lambda id_: reverse("pages:docs") + "?" + urlencode({"project": id_}),
}


class WorkspaceLinks:
    def __init__(self, org):
        self.org = org
        self.known: dict[str, set[str]] = {}

    def prepare(self, refs: set[tuple[str, str]]) -> None:
        wanted: dict[str, set[str]] = {}
        for kind, id_ in refs:
            if kind in PAGE_OF:
                wanted.setdefault(kind, set()).add(id_)
        for kind, ids in wanted.items():
            self.known[kind] = selectors.records_by_id(org=self.org, kind=kind, ids=ids)

    def url(self, kind: str, id_: str) -> str | None:
        page = PAGE_OF.get(kind)
        if page is None:
            return None
        known = self.known.get(kind, set())
        # Ids are compared as the database gives them (lower-case UUIDs).
        normal = str(selectors.as_uuid(id_)) if selectors.as_uuid(id_) else None
        return page(normal) if normal in known else None
