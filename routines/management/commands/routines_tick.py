from django.core.management.base import BaseCommand

from routines import engine


class Command(BaseCommand):
    help = "Run the scheduler's tick once: fire what is due (the worker runs it every minute on its own)."

    def handle(self, *args, **options):
        self.stdout.write(f"fired {engine.tick()}")
