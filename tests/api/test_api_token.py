"""`python manage.py api_token USERNAME`: the owner's token for the REST API."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient


def token_for(username: str, *args) -> str:
    out = StringIO()
    call_command("api_token", username, *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def signed_in(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_the_token_signs_the_owner_in(org):
    assert signed_in(token_for(org.owner.username)).get("/api/agents/").status_code == 200


def test_asking_again_gives_the_same_token(org):
    assert token_for(org.owner.username) == token_for(org.owner.username)


def test_new_replaces_the_token_and_the_old_one_stops_working(org):
    old = token_for(org.owner.username)
    new = token_for(org.owner.username, "--new")
    assert (new != old, signed_in(old).get("/api/agents/").status_code) == (True, 401)


def test_an_unknown_username_is_an_error(db):
    with pytest.raises(CommandError, match="No user"):
        token_for("nobody")


def test_a_user_without_a_workspace_gets_no_token(db):
    get_user_model().objects.create_user("staff", is_staff=True)
    with pytest.raises(CommandError, match="owns no workspace"):
        token_for("staff")
