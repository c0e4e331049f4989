"""The API's OpenAPI schema as the tests walk it: every operation, and the ids each one's path takes."""

from __future__ import annotations

import re

from django.test.client import ClientHandler

# An id of the path, by the name the route gives it, and the attribute of a `World` that holds one.
PATH_IDS = {
    "agent_id": "agent",
    "conversation_id": "chat",
    "contact_id": "contact",
    "company_id": "company",
    "project_id": "project",
    "doc_id": "doc",
    "change_id": "change",
    "card_id": "card",
}
# Where an operation needs a record of another kind than PATH_IDS names: Try again needs the thread that failed.
OTHER_IDS = {"conversations_try_again": {"conversation_id": "thread"}}
METHODS = ("get", "post", "put", "patch", "delete")


def path_ids(operation_id: str) -> dict[str, str]:
    """The World attribute that holds a record for each path id the operation takes."""
    return PATH_IDS | OTHER_IDS.get(operation_id, {})


def load_schema() -> dict:
    """The schema as /api/schema/ serves it, generated here without a request (so at collection time)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.settings import patched_settings

    from api.urls import SCHEMA_SETTINGS

    with patched_settings(SCHEMA_SETTINGS):
        return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict) -> list[tuple[str, str, str]]:
    """(operationId, METHOD, path template) of every operation."""
    return [
        (op["operationId"], method.upper(), path)
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if method in METHODS
    ]


def path_names(path: str) -> list[str]:
    return re.findall(r"{(\w+)}", path)


def fill(path: str, ids: dict[str, str]) -> str:
    return re.sub(r"{(\w+)}", lambda m: ids[m.group(1)], path)


def wsgi_app(environ, start_response):
    """Django as a WSGI app for schemathesis, through the test client's handler: it keeps the test's database
    connection open (a real WSGIHandler closes it at the end of each request, and with it the test's
    transaction)."""
    response = _handler(environ)
    headers = list(response.items())
    headers += [("Set-Cookie", cookie.output(header="").strip()) for cookie in response.cookies.values()]
    start_response(f"{response.status_code} {response.reason_phrase}", headers)
    return [response.content]


_handler = ClientHandler(enforce_csrf_checks=True)
