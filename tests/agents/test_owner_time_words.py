"""The owner's words quoted to an agent (a hand-off's or a thread's packet) say when in the spec's wording: "Sam said
in Roadstar's chat at 4:05 PM", in the owner's zone, never an ISO timestamp."""

import datetime

from agents.runtime.packets import owner_time_words, packet_text
from core.owner_zone import zone_named

NEW_YORK = zone_named("America/New_York")
NOW = datetime.datetime(2026, 12, 4, 23, 0, tzinfo=datetime.UTC)  # 6:00 PM in New York


def test_the_same_day_reads_as_the_clock_in_the_owners_zone():
    assert owner_time_words("2026-12-04T21:05:41.624683+00:00", zone=NEW_YORK, now=NOW) == "at 4:05 PM"


def test_another_day_names_it_and_another_year_names_that():
    assert owner_time_words("2026-12-03T14:30:00+00:00", zone=NEW_YORK, now=NOW) == "on Thu Dec 3 at 9:30 AM"
    assert owner_time_words("2025-12-31T17:00:00+00:00", zone=NEW_YORK, now=NOW) == "on Wed Dec 31, 2025 at 12:00 PM"


def test_midnight_and_noon_read_as_twelve():
    assert owner_time_words("2026-12-04T05:00:00+00:00", zone=NEW_YORK, now=NOW) == "at 12:00 AM"


def test_the_packet_quotes_the_owner_by_name_in_the_specs_order(org):
    org.time_zone = "America/New_York"
    text = packet_text(sender="Roadstar", task="Write the Ortiz Bakery proposal, due Friday.", notes="Rosa wants it",
                       links=["contact:e2a9f4c1-6b07-4d38-a15e-93c0b7d2f846"], org=org, now=NOW,
                       owner_words=[{"text": "Start with the Ortiz Bakery one", "where": "Roadstar's chat",
                                     "at": "2026-12-04T21:05:41.624683+00:00"}])
    assert text == (f"[From Roadstar] Write the Ortiz Bakery proposal, due Friday. {org.owner_first_name} said in "
                    "Roadstar's chat at 4:05 PM: \"Start with the Ortiz Bakery one\" Notes: Rosa wants it Links: "
                    "contact:e2a9f4c1-6b07-4d38-a15e-93c0b7d2f846")
    assert "+00:00" not in text
