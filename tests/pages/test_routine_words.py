"""Routines as the owner reads them: "Weekdays at 7:30 AM", never a cron line."""

import pytest

from pages.routine_words import cron_words


@pytest.mark.parametrize("line, words", [
    ("30 7 * * 1-5", "weekdays at 7:30 AM"),
    ("0 9 * * 1", "Mondays at 9 AM"),
    ("0 17 * * 1,4", "Mondays and Thursdays at 5 PM"),
    ("0 10 * * 0,6", "weekends at 10 AM"),
    ("15 12 * * *", "every day at 12:15 PM"),
    ("0 0 * * *", "every day at 12 AM"),
    ("0 8 1 * *", "on the 1st of each month at 8 AM"),
    ("0 8 22 * *", "on the 22nd of each month at 8 AM"),
    ("*/15 * * * *", "every 15 minutes"),
    ("5 * * * *", "every hour, 5 minutes past"),
    ("0 */2 * * *", "every 2 hours"),
    ("0 9 1 1 *", "on its own schedule"),
    ("nonsense", "on its own schedule"),
])
def test_cron_lines_read_as_sentences(line, words):
    assert cron_words(line) == words


def test_the_routines_page_says_when_in_words(owner, org, agent):
    from routines.models import Routine

    Routine.objects.create(organization=org, agent=agent, name="Morning check", at="30 7 * * 1-5",
                           note="Look at the inbox")
    page = owner.get("/routines/").content.decode()
    assert "Weekdays at 7:30 AM" in page and "30 7 * * 1-5" not in page
