"""What the integrations app registers into the layers below it (core.registry).

Held emails show on Home with their countdown (core.held). A contact's timeline reads the mail and calendar apps:
the contacts app, a layer below, is given the sources here rather than importing this app; a source reads as not
connected while the workspace has no connection for it.
"""

from contacts.selectors import TIMELINE_SOURCES, TimelineSource
from core.held import HELD_SOURCES, HeldSource
from integrations.mail_hold import held_lines
from integrations.mail_timeline import mail_timeline
from integrations.meetings import meeting_timeline

HELD_SOURCES.add(HeldSource("mail", held_lines))
TIMELINE_SOURCES.add(TimelineSource("mail", "gmail", "Gmail", "mail threads", provider=mail_timeline))
TIMELINE_SOURCES.add(TimelineSource("calendar", "google_calendar", "Google Calendar", "meetings",
                                    provider=meeting_timeline))
