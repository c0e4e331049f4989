"""Tokens made before only hashes were kept: each becomes its SHA-256 in ApiToken (the same token still signs its
owner in), and DRF's table of tokens as given is emptied."""

import hashlib

from django.db import migrations


def hash_tokens(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("api", "ApiToken")
    for token in Token.objects.all():
        ApiToken.objects.update_or_create(
            user_id=token.user_id,
            defaults={"key_hash": hashlib.sha256(token.key.encode()).hexdigest(), "hint": token.key[:4]},
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_api_token"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    # Not reversible: the tokens themselves were never kept, so there is nothing to put back.
    operations = [migrations.RunPython(hash_tokens, migrations.RunPython.noop)]
