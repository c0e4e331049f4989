"""The OpenAPI schema at /api/schema/: it validates, and it holds every route of the API."""

import re

import pytest
from django.urls import URLPattern, get_resolver
from drf_spectacular.validation import validate_schema

from api import urls as api_urls
from tests.api.schema import load_schema, operations


@pytest.fixture(scope="module")
def served(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_the_served_schema_validates_as_openapi_3(served):
    validate_schema(served)  # raises on any fault, with where it is


def test_the_served_schema_is_the_one_the_tests_walk(served):
    assert served == load_schema()


def test_the_schema_is_served_as_yaml_too(client):
    response = client.get("/api/schema/")
    assert (response.status_code, response.content.startswith(b"openapi: 3.0")) == (200, True)


def test_the_schema_page_shows(client):
    assert client.get("/api/schema/docs/").status_code == 200


def test_the_schema_page_works_under_its_content_security_policy(client):
    # Swagger UI comes from its CDN: that page alone may load from there, and its own script is no inline one.
    page = client.get("/api/schema/docs/")
    policy, body = page["Content-Security-Policy"], page.content.decode()
    inline = [tag for tag in re.findall(r"<script\b[^>]*>", body) if "src=" not in tag]
    script = client.get("/api/schema/docs/?script=")
    assert "script-src 'self' https://cdn.jsdelivr.net" in policy and "frame-ancestors 'none'" in policy
    assert inline == [] and script.status_code == 200 and b"SwaggerUIBundle" in script.content


def test_other_pages_may_not_load_from_the_cdn(client):
    assert "cdn.jsdelivr.net" not in client.get("/login/")["Content-Security-Policy"]


def _api_routes() -> set[str]:
    skip = {"schema", "schema_docs", "no_route"}
    return {
        "/api/" + str(p.pattern).replace("<uuid:", "{").replace(">", "}")
        for p in api_urls.urlpatterns
        if isinstance(p, URLPattern) and p.name not in skip
    }


def test_every_route_is_in_the_schema(served):
    assert _api_routes() == set(served["paths"])


def test_the_api_is_mounted_at_api():
    assert get_resolver().resolve("/api/agents/").url_name == "agents"


@pytest.mark.parametrize("operation_id, method, path", operations(load_schema()))
def test_every_operation_documents_its_errors_in_the_one_shape(served, operation_id, method, path):
    responses = served["paths"][path][method.lower()]["responses"]
    assert all(responses[code]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
               for code in ("400", "401", "403"))


def test_the_error_shape_lists_the_12_kinds(served):
    from core.errors import ERROR_KINDS

    error = served["components"]["schemas"]["Error"]
    ref = error["properties"]["error"]["allOf"][0]["$ref"]
    kinds = served["components"]["schemas"][ref.rsplit("/", 1)[1]]["enum"]
    assert (kinds, error["required"]) == (list(ERROR_KINDS), ["error", "message"])
