"""The staff admin shows connections but never their tokens, in clear or encrypted."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory


@pytest.fixture
def staff(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_the_connection_list_shows_the_account(staff, google):
    assert "sam@fernhill.test" in staff.get(reverse("admin:integrations_connection_changelist")).content.decode()


def test_a_connections_page_never_shows_its_tokens(staff, google):
    page = staff.get(reverse("admin:integrations_connection_change", args=[google.pk])).content.decode()
    assert page.count("sam@fernhill.test") and "g-access-1" not in page and "g-refresh-1" not in page and (
        google.tokens[:40] not in page
    )


def test_staff_cannot_add_a_connection_by_hand(staff):
    assert staff.get(reverse("admin:integrations_connection_add")).status_code == 403


def test_staff_can_not_search_connections_by_their_tokens(staff, google):
    page = staff.get(reverse("admin:integrations_connection_changelist"), {"q": google.tokens[:20]}).content.decode()
    assert "sam@fernhill.test" not in page.split("</form>", 1)[-1]
