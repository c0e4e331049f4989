"""Make the owner's REST API token (shown once) and sign in with one: only its SHA-256 is kept."""

from __future__ import annotations

import datetime
import hashlib
import secrets

from django.db import transaction
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from api.models import ApiToken

TOKEN_PREFIX = "rsa_"
# last_used_at is for the owner's eyes: writing it on every request would only add writes, so once a minute.
TOUCH_EVERY = datetime.timedelta(minutes=1)


def token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def api_token_make(*, user) -> str:
    """A new token for `user`, replacing the one they had (it stops working at once). Returns the token, which is
    kept nowhere: show it now."""
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        ApiToken.objects.filter(user=user).delete()
        ApiToken.objects.create(user=user, key_hash=token_hash(plaintext), hint=plaintext[: len(TOKEN_PREFIX) + 4])
    return plaintext


def api_token_user(plaintext: str):
    """The active user this token signs in, or None. A token made before tokens were hashed (40 hex characters,
    hashed by the migration) signs in the same way."""
    if not plaintext:
        return None
    row = ApiToken.objects.select_related("user").filter(key_hash=token_hash(plaintext)).first()
    if row is None or not row.user.is_active:
        return None
    now = timezone.now()
    if row.last_used_at is None or now - row.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(id=row.id).update(last_used_at=now)
    return row.user


class ApiTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <token>`, checked against the kept hashes (DRF's own Token keeps tokens as given)."""

    def authenticate_credentials(self, key):
        user = api_token_user(key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        return (user, None)
