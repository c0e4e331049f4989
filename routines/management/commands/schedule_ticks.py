from django.core.management.base import BaseCommand
from django_q.models import Schedule


class Command(BaseCommand):
    help = "Make the worker's schedules: the routines tick and the agents' dispatch sweep, every minute."

    def handle(self, *args, **options):
        for func, name in (("routines.tasks.tick", "routines tick"), ("agents.tasks.dispatch_all", "dispatch sweep")):
            Schedule.objects.update_or_create(
                name=name, defaults={"func": func, "schedule_type": Schedule.MINUTES, "minutes": 1, "repeats": -1}
            )
        self.stdout.write("Schedules ready: routines tick and dispatch sweep, every minute.")
