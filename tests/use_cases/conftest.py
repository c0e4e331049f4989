import io

import pytest
from django.core.management import call_command

from core.models import Organization
from tests.agents.conftest import model, staff  # noqa: F401  (fixtures shared with the agents tests)


@pytest.fixture
def fernhill(db, settings, tmp_path):
    """The example workspace, as `make run` seeds it (mail kept under a temporary folder)."""
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    call_command("seed_demo", stdout=io.StringIO())
    return Organization.objects.get(owner__username="sam")
