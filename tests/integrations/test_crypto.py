import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from integrations import crypto
from integrations.models import Connection

TOKENS = {"access_token": "ya29.plain-access", "refresh_token": "1//plain-refresh", "expiry": None}


def test_tokens_round_trip_through_the_connection(google):
    google.set_tokens(TOKENS)
    google.save()
    assert Connection.objects.get(pk=google.pk).read_tokens() == TOKENS


def test_the_stored_column_holds_no_plaintext_token(google):
    google.set_tokens(TOKENS)
    google.save()
    stored = Connection.objects.filter(pk=google.pk).values_list("tokens", flat=True).get()
    assert "plain-access" not in stored and "plain-refresh" not in stored and stored


def test_a_configured_key_encrypts_and_the_derived_key_cannot_read_it(settings):
    settings.ROADSTAR_TOKEN_KEY = Fernet.generate_key().decode()
    text = crypto.encrypt(TOKENS)
    settings.ROADSTAR_TOKEN_KEY = ""
    with pytest.raises(crypto.TokensUnreadable):
        crypto.decrypt(text)


def test_the_derived_key_follows_secret_key(settings):
    settings.ROADSTAR_TOKEN_KEY = ""
    text = crypto.encrypt(TOKENS)
    settings.SECRET_KEY = "another-secret"
    with pytest.raises(crypto.TokensUnreadable):
        crypto.decrypt(text)


def test_an_old_key_listed_second_still_decrypts(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.ROADSTAR_TOKEN_KEY = old
    text = crypto.encrypt(TOKENS)
    settings.ROADSTAR_TOKEN_KEY = f"{new},{old}"
    assert crypto.decrypt(text) == TOKENS


def test_a_key_that_is_not_a_fernet_key_is_refused(settings):
    settings.ROADSTAR_TOKEN_KEY = "not-a-key"
    with pytest.raises(ImproperlyConfigured, match="ROADSTAR_TOKEN_KEY"):
        crypto.encrypt(TOKENS)
