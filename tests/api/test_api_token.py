"""`python manage.py api_token USERNAME`: the owner's token for the REST API, shown once, kept only as a hash."""

import hashlib
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from api.models import ApiToken


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


def test_only_a_hash_of_the_token_is_kept(org):
    token = token_for(org.owner.username)
    row = ApiToken.objects.get(user=org.owner)
    assert (row.key_hash, row.hint) == (hashlib.sha256(token.encode()).hexdigest(), token[:8])
    kept = [str(value) for value in ApiToken.objects.values_list().get(id=row.id)]
    assert not any(token in value for value in kept)


def test_the_token_is_shown_once_asking_again_says_so_without_it(org):
    token = token_for(org.owner.username)
    with pytest.raises(CommandError, match="has a token already .*--new") as refused:
        token_for(org.owner.username)
    assert token not in str(refused.value)
    assert signed_in(token).get("/api/agents/").status_code == 200


def test_new_replaces_the_token_and_the_old_one_stops_working(org):
    old = token_for(org.owner.username)
    new = token_for(org.owner.username, "--new")
    assert (new != old, signed_in(old).get("/api/agents/").status_code) == (True, 401)
    assert signed_in(new).get("/api/agents/").status_code == 200


def test_a_wrong_token_is_refused(org):
    token_for(org.owner.username)
    assert signed_in("rsa_not-a-token").get("/api/agents/").status_code == 401


def test_a_deactivated_owner_is_refused(org):
    token = token_for(org.owner.username)
    get_user_model().objects.filter(id=org.owner_id).update(is_active=False)
    assert signed_in(token).get("/api/agents/").status_code == 401


def test_an_unknown_username_is_an_error(db):
    with pytest.raises(CommandError, match="No user"):
        token_for("nobody")


def test_a_user_without_a_workspace_gets_no_token(db):
    get_user_model().objects.create_user("staff", is_staff=True)
    with pytest.raises(CommandError, match="owns no workspace"):
        token_for("staff")


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_tokens_kept_as_given_and_they_still_sign_in():
    from tests.factories import OrganizationFactory

    before = [("api", "0001_api_token"), ("authtoken", "0004_alter_tokenproxy_options")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera")
    old_token = old_apps.get_model("authtoken", "Token").objects.create(
        key="9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", user_id=org.owner_id
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from rest_framework.authtoken.models import Token

    assert not Token.objects.exists()
    row = ApiToken.objects.get(user_id=org.owner_id)
    assert row.key_hash == hashlib.sha256(old_token.key.encode()).hexdigest()
    assert signed_in(old_token.key).get("/api/agents/").status_code == 200
