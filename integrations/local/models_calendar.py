"""The local calendar (the owner's meetings kept by Roadstar, imported from .ics), and where each calendar's
new-meeting watch has got to.

A local event's id is its row id: tools give it out as `<account key>:<id>`, like any calendar's. The watch
(integrations/tasks_apps.py) keeps one cursor per connection, whatever the app.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

__all__ = ["LocalEvent", "CalendarWatch"]

class LocalEvent(models.Model):
    """One meeting on a local calendar: imported from .ics (one row per occurrence), or held by calendar.hold."""

    id = models.BigAutoField(primary_key=True)
    connection = models.ForeignKey("integrations.Connection", on_delete=models.CASCADE, related_name="+")
    # The iCalendar UID (with the occurrence's start for a repeating event): importing the file again updates
    # the same rows instead of adding them twice.
    uid = models.CharField(max_length=500)
    title = models.CharField(max_length=500)
    description = models.TextField(blank=True)
    location = models.CharField(max_length=500, blank=True)
    start = models.DateTimeField()
    end = models.DateTimeField()
    all_day = models.BooleanField(default=False)
    guests = models.JSONField(default=list, blank=True, help_text="The guests' addresses, the owner left out.")
    # Lower-cased title, description, location and guests: what calendar.list's `query` matches.
    search = models.TextField(blank=True, editable=False)
    url = models.CharField(max_length=2000, blank=True, help_text="The event's own link, when the file gave one.")
    held = models.BooleanField(default=False, help_text="Time held by calendar.hold, inviting nobody.")
    cancelled = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["start", "id"]
        constraints = [models.UniqueConstraint(fields=["connection", "uid"], name="local_event_uid_unique")]
        indexes = [models.Index(fields=["connection", "start"], name="local_event_start_idx")]

    def __str__(self):
        return f"{self.title} ({self.start:%Y-%m-%d %H:%M})"

    def save(self, *args, **kwargs):
        self.search = "\n".join([self.title, self.description, self.location, *self.guests]).lower()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "search"}
        super().save(*args, **kwargs)


class CalendarWatch(models.Model):
    """Where the new-meeting watch of one calendar connection has got to: the provider's own cursor."""

    connection = models.OneToOneField(
        "integrations.Connection", on_delete=models.CASCADE, related_name="calendar_watch"
    )
    cursor = models.CharField(max_length=500, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "calendar watches"

    def __str__(self):
        return f"calendar watch of {self.connection_id}"
