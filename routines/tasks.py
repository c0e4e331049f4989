"""Worker tasks for routines; each is safe to run twice and in several workers at once."""

from routines import engine
from routines.models import Event


def tick():
    return engine.tick()


def match_asks_again(org_id: str, event_ids: list[str]):
    return [run.id for run in engine.match_asks_again(org_id=org_id, event_ids=event_ids)]


def match_event(event_id: str):
    event = Event.objects.filter(id=event_id, matched_at__isnull=True).first()
    if event is None:
        return []
    return [run.id for run in engine.match_event(event)]
