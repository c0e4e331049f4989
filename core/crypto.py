"""Secrets at rest (the apps' tokens, the AI model's key): Fernet (AES-128-CBC with HMAC-SHA256) over a JSON blob,
so the database never holds a token in clear.

The key comes from the environment:
- `ROADSTAR_TOKEN_KEY`: one Fernet key (`python -c "from cryptography.fernet import Fernet;
  print(Fernet.generate_key().decode())"`), or several separated by commas to rotate keys: the first encrypts,
  every one decrypts. Rotate by putting the new key first, then (optionally) re-encrypting with
  `Connection.set_tokens(connection.read_tokens())` before dropping the old key.
- unset: a key derived from `SECRET_KEY` with HKDF-SHA256 (info "roadstar token encryption"). Changing SECRET_KEY
  then makes every stored token unreadable: the owner must connect each app again. Set ROADSTAR_TOKEN_KEY in
  production so the two secrets can be rotated apart.
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

ENV_KEY = "ROADSTAR_TOKEN_KEY"
_HKDF_INFO = b"roadstar token encryption"


class TokensUnreadable(Exception):
    """The stored tokens can't be decrypted with the configured keys (the key changed, or the row was tampered)."""


def _derived_key(secret: str) -> bytes:
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_HKDF_INFO).derive(secret.encode())
    return base64.urlsafe_b64encode(raw)


@lru_cache(maxsize=8)
def _fernet(configured: str, secret: str) -> MultiFernet:
    if not configured:
        return MultiFernet([Fernet(_derived_key(secret))])
    keys = []
    for part in (p.strip() for p in configured.split(",")):
        if not part:
            continue
        try:
            keys.append(Fernet(part))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"{ENV_KEY} must be Fernet keys (32 url-safe base64-encoded bytes), separated by commas. Make one "
                'with: python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'
            ) from exc
    if not keys:
        raise ImproperlyConfigured(f"{ENV_KEY} is set but holds no key.")
    return MultiFernet(keys)


def fernet() -> MultiFernet:
    # Read on every call (cached per value), so a test or a deploy that changes the key takes effect at once.
    return _fernet(settings.ROADSTAR_TOKEN_KEY or "", settings.SECRET_KEY)


def encrypt(data: dict[str, Any]) -> str:
    return fernet().encrypt(json.dumps(data, separators=(",", ":")).encode()).decode()


def decrypt(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        data: dict[str, Any] = json.loads(fernet().decrypt(text.encode()))
        return data
    except InvalidToken as exc:
        raise TokensUnreadable("the stored tokens can't be decrypted with the configured key") from exc
