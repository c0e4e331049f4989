"""One error shape for every failure: `{error, message}`, a kind of the errors reference, the status that fits."""

import logging
import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from api import errors, selectors
from api.errors import STATUS_OF_KIND
from core.errors import ERROR_KINDS, ToolError


def assert_error(response, status: int, kind: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) <= {"error", "message", "card"}
    assert body["error"] == kind
    assert body["message"]
    return body


def test_every_error_kind_has_a_status():
    assert set(STATUS_OF_KIND) == set(ERROR_KINDS)


def test_a_call_without_a_sign_in_is_reauth_401_with_the_token_scheme(db):
    response = APIClient().get("/api/contacts/")
    assert_error(response, 401, "reauth")
    assert response["WWW-Authenticate"] == "Token"


def test_a_wrong_token_is_reauth_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(client.get("/api/contacts/"), 401, "reauth")


def test_a_sign_in_without_a_workspace_is_forbidden(db):
    staff = get_user_model().objects.create_user("staff", is_staff=True)
    client = APIClient()
    client.force_authenticate(staff)
    body = assert_error(client.get("/api/agents/"), 403, "forbidden")
    assert "no workspace" in body["message"]


def test_a_signed_in_session_reads_the_api(org):
    client = APIClient()
    client.force_login(org.owner)
    assert client.get("/api/agents/").status_code == 200


def test_a_session_write_without_the_csrf_token_is_forbidden(org):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(org.owner)
    body = assert_error(client.post("/api/projects/", {"name": "Rebrand"}, format="json"), 403, "forbidden")
    assert "CSRF" in body["message"]


def test_invalid_input_is_bad_input_naming_the_field(api):
    body = assert_error(api.post("/api/projects/", {"name": ""}, format="json"), 400, "bad_input")
    assert body["message"].startswith("name:")


def test_a_nested_problem_names_where_it_is(api):
    people = [{"contactId": str(uuid.uuid4())}, {"contactId": "nope"}]
    body = assert_error(api.post("/api/companies/", {"name": "Juniper", "people": people}, format="json"), 400,
                        "bad_input")
    assert body["message"].startswith("people[1].contactId:")


def test_a_body_name_the_call_doesnt_take_is_bad_input_naming_it(api):
    body = assert_error(api.post("/api/projects/", {"name": "Rebrand", "colour": "red"}, format="json"), 400,
                        "bad_input")
    assert "colour" in body["message"]


def test_a_body_that_isnt_json_is_bad_input(api):
    response = api.post("/api/projects/", "{not json", content_type="application/json")
    assert_error(response, 400, "bad_input")


def test_a_body_that_is_a_list_is_bad_input(api):
    assert_error(api.post("/api/projects/", [1, 2], format="json"), 400, "bad_input")


def test_a_form_body_is_unsupported_415(api):
    assert_error(api.post("/api/projects/", {"name": "Rebrand"}), 415, "unsupported")


def test_a_method_a_route_doesnt_take_is_unsupported_405(api):
    assert_error(api.delete("/api/projects/"), 405, "unsupported")


def test_a_path_that_names_no_route_is_not_found(api):
    assert_error(api.get("/api/nothing-here/"), 404, "not_found")


def test_an_id_that_isnt_a_uuid_is_not_found(api):
    assert_error(api.get("/api/contacts/42/"), 404, "not_found")


def test_a_route_without_its_slash_says_where_it_is(api):
    body = assert_error(api.get("/api/contacts"), 404, "not_found")
    assert body["message"].endswith("/api/contacts/")


def test_a_services_error_keeps_its_kind_and_message(api, monkeypatch):
    def changed(**kwargs):
        raise ToolError("changed", "It moved on since.")

    monkeypatch.setattr(selectors, "agents_with_spend", changed)
    body = assert_error(api.get("/api/agents/"), 409, "changed")
    assert body["message"] == "It moved on since."


def test_an_unexpected_error_is_unknown_outcome_500_without_a_traceback(api, monkeypatch, caplog):
    def broken(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(selectors, "agents_with_spend", broken)
    with caplog.at_level(logging.ERROR, logger="api.errors"):
        response = api.get("/api/agents/")
    body = assert_error(response, 500, "unknown_outcome")
    assert "secret internals" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert "secret internals" in caplog.text  # logged for whoever runs Roadstar
    assert body["message"] == errors.UNEXPECTED


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_error_body_is_kind_and_message(kind):
    assert errors.error_body(kind, "What happened.") == {"error": kind, "message": "What happened."}


def test_error_body_refuses_a_kind_the_spec_doesnt_have():
    with pytest.raises(ValueError):
        errors.error_body("oops", "What happened.")


def test_a_path_with_a_newline_in_it_is_not_found_in_the_one_shape(api):
    assert_error(api.get("/api/projects/a\nb/"), 404, "not_found")


def test_json_nested_too_deep_to_read_is_bad_input(api):
    response = api.post("/api/projects/", "[" * 100_000, content_type="application/json")
    assert_error(response, 400, "bad_input")


def test_a_query_string_of_too_many_fields_is_bad_input(api, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    query = "&".join(f"f{i}=x" for i in range(20))
    assert_error(api.get(f"/api/contacts/?{query}"), 400, "bad_input")
