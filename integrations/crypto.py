"""The apps' tokens at rest: the encryption is core's (core/crypto.py), shared with the AI model's key, which sits
below integrations (the agents' model client reads it)."""

from core.crypto import ENV_KEY, TokensUnreadable, decrypt, encrypt, fernet

__all__ = ["ENV_KEY", "TokensUnreadable", "decrypt", "encrypt", "fernet"]
