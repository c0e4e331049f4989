import pytest


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The pages and the example workspace set and check passwords; the real hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
