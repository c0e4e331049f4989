"""The one zone helper: a zone name Python doesn't know (edited in the admin) is UTC everywhere, never a crash."""

import datetime

from contacts.services import contact_follow_up
from core.actors import Actor
from core.owner_zone import owner_time, owner_today, owner_zone, zone_named
from research.selectors import stories_today
from search.dates import start_of
from tests.factories import ContactFactory


def test_a_known_name_is_its_zone_and_an_unknown_one_utc():
    assert str(zone_named("America/New_York")) == "America/New_York"
    for bad in ("Eastern Time (US & Canada)", "", None, "../etc/passwd"):
        assert zone_named(bad) is datetime.UTC


def test_owner_time_reads_a_time_without_offset_in_the_owners_zone():
    org = type("Org", (), {"time_zone": "America/New_York"})()
    naive = datetime.datetime(2026, 3, 9, 9, 0)  # noqa: DTZ001 (no offset: the owner's local time)
    assert owner_time(org, naive) == datetime.datetime(2026, 3, 9, 13, tzinfo=datetime.UTC)
    aware = datetime.datetime(2026, 3, 9, 9, tzinfo=datetime.UTC)
    assert owner_time(org, aware) is aware
    assert owner_zone(None) is datetime.UTC
    late = datetime.datetime(2026, 3, 10, 2, tzinfo=datetime.UTC)  # the 9th still in New York
    assert owner_today(org, late) == datetime.date(2026, 3, 9)


def test_a_workspace_with_a_zone_python_doesnt_know_works_in_utc(org, agent):
    org.time_zone = "Eastern Time (US & Canada)"  # a display label, as the admin once saved
    org.save(update_fields=["time_zone"])
    naive = datetime.datetime(2099, 3, 9, 9, 0)  # noqa: DTZ001 (no offset: the owner's local time)
    contact = ContactFactory(organization=org)
    item, _ = contact_follow_up(org=org, actor=Actor.for_agent(agent), contact=contact, text="Chase", at=naive)
    assert item.at == datetime.datetime(2099, 3, 9, 9, tzinfo=datetime.UTC)
    now = datetime.datetime(2026, 3, 9, 12, tzinfo=datetime.UTC)
    assert start_of("yesterday", time_zone=org.time_zone, now=now)[0] == datetime.datetime(
        2026, 3, 8, tzinfo=datetime.UTC)
    assert stories_today(org=org, now=now) == []
