"""Search's per-account setting on Connections: the owner turns it on and off, sees the copy's progress, and can't
reach another workspace's account."""

import pytest

from integrations.models import SearchCopy
from integrations.services import connection_create_local
from search import sync
from tests.factories import OrganizationFactory
from tests.search.conftest import DAY, received

pytestmark = pytest.mark.django_db


@pytest.fixture
def plain_box(org):
    return connection_create_local(org=org, account="sam@fernhill.test", groups=["mail"])


def test_the_owner_turns_search_on_and_sees_the_progress(client, org, plain_box):
    client.force_login(org.owner)
    page = client.get("/connections/").content.decode()
    assert "Search:" in page and "Turn search on" in page
    received(plain_box, sender="dana@juniperdental.test", subject="Hello", text="Hi", at=DAY)
    answer = client.post(f"/connections/search/{plain_box.account_key}", {"on": "1"})
    assert answer.status_code == 302
    copy = SearchCopy.objects.get(connection=plain_box)
    assert (copy.on, copy.state) == (True, "waiting")
    assert "copying starts within a minute" in client.get("/connections/").content.decode()
    SearchCopy.objects.filter(pk=copy.pk).update(state="copying", copied=40, total=100)
    assert "copying, 40% (40 of 100)" in client.get("/connections/").content.decode()
    SearchCopy.objects.filter(pk=copy.pk).update(state="waiting", copied=0, total=0)
    sync.sweep()
    page = client.get("/connections/").content.decode()
    assert "1 item copied" in page and "Turn search off" in page
    client.post(f"/connections/search/{plain_box.account_key}", {"on": "0"})
    assert not SearchCopy.objects.get(connection=plain_box).on


def test_another_workspaces_account_is_not_found(client, org, plain_box):
    other = OrganizationFactory(name="Other")
    theirs = connection_create_local(org=other, account="lee@other.test", groups=["mail"])
    client.force_login(org.owner)
    assert client.post(f"/connections/search/{theirs.account_key}", {"on": "1"}).status_code == 404
    assert not SearchCopy.objects.filter(connection=theirs).exists()


def test_turning_search_on_needs_a_post_and_a_sign_in(client, org, plain_box):
    assert client.post(f"/connections/search/{plain_box.account_key}", {"on": "1"}).status_code == 302  # to sign in
    assert not SearchCopy.objects.filter(connection=plain_box).exists()
    client.force_login(org.owner)
    assert client.get(f"/connections/search/{plain_box.account_key}").status_code == 405


def test_staff_read_the_copy_and_its_state_in_the_admin(client, org, plain_box):
    from integrations.services import connection_search_set
    from tests.factories import UserFactory

    connection_search_set(org=org, account_key=plain_box.account_key, on=True)
    received(plain_box, sender="dana@juniperdental.test", subject="Hello there", text="Hi", at=DAY)
    sync.sweep()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert "Hello there" in client.get("/admin/search/searchitem/").content.decode()
    assert client.get("/admin/integrations/searchcopy/").status_code == 200
