from django.core.management.base import BaseCommand
from django_q.models import Schedule

from agents.newsfeed_brief import SCHEDULES as NEWSFEED_BRIEFS
from agents.research_writer import SCHEDULES as RESEARCH_PAGES
from integrations.files.events import SCHEDULES as DOC_WATCHES
from integrations.tasks_apps import SCHEDULES as APP_WATCHES
from integrations.tasks_mail import SCHEDULES as MAIL_TASKS
from research.tasks import SCHEDULES as RESEARCH_TASKS
from search.tasks import SCHEDULES as SEARCH_TASKS


class Command(BaseCommand):
    help = "Make the worker's schedules: the routines tick and the agents' dispatch sweep, every minute."

    def handle(self, *args, **options):
        every_minute = (("routines.tasks.tick", "routines tick", 1), ("agents.tasks.dispatch_all", "dispatch sweep", 1))
        schedules = (every_minute + APP_WATCHES + MAIL_TASKS + DOC_WATCHES + RESEARCH_TASKS + RESEARCH_PAGES
                     + NEWSFEED_BRIEFS + SEARCH_TASKS)
        for func, name, minutes in schedules:
            Schedule.objects.update_or_create(
                name=name, defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": minutes, "repeats": -1}
            )
        self.stdout.write(
            "Schedules ready: routines tick and dispatch sweep, every minute; the apps' watches; the newsfeed and "
            "research pages sweeps; the newsfeed's briefs."
        )
