"""The local mailbox's SMTP hand-off, telling "it didn't go" from "it may have gone".

An SMTP server takes an email with the 250 that answers the final dot of DATA. A failure before that dot was sent
leaves nothing at the server (it drops an unfinished DATA), so sending again is safe. A failure after it (the
connection lost or timed out while the answer was awaited) may come after the server took the email (RFC 1047):
`HandOffUncertain` says so, and the hold asks the owner rather than risk sending it twice.

MAILERS' SMTP backend is `integrations.smtp.EmailBackend`: Django's, on an SMTP connection that keeps track.
"""

from __future__ import annotations

import smtplib
from collections.abc import Buffer

from django.core.mail.backends import smtp


class HandOffUncertain(Exception):
    """The server had the whole email when the connection failed: it may have taken it."""


class _Tracking(smtplib.SMTP):
    """Tracks whether the final dot went; mixed in before SMTP or SMTP_SSL, whose sending it wraps."""

    dot_sent = False

    def send(self, s: Buffer | str) -> None:
        super().send(s)
        if isinstance(s, bytes) and s.endswith(b"\r\n.\r\n"):
            self.dot_sent = True  # sendall returned: the server may have all of it

    def data(self, msg: Buffer | str) -> tuple[int, bytes]:
        self.dot_sent = False
        try:
            return super().data(msg)
        except smtplib.SMTPResponseException:
            raise  # the server answered, and not with yes: nothing went
        except OSError as error:  # smtplib's disconnects and socket timeouts
            if self.dot_sent:
                raise HandOffUncertain(f"the connection failed after the whole email was sent ({error})") from error
            raise


class TrackingSMTP(_Tracking):
    pass


class TrackingSMTP_SSL(_Tracking, smtplib.SMTP_SSL):  # noqa: N801  (named as smtplib.SMTP_SSL is)
    pass


class EmailBackend(smtp.EmailBackend):
    @property
    def connection_class(self):
        return TrackingSMTP_SSL if self.use_ssl else TrackingSMTP
