"""What the mail tests share: the mail folder in a temporary place, messages put in a local mailbox, Gmail's
recorded answers, and a transport that remembers what was asked of it."""

from __future__ import annotations

import base64
import datetime
import json

import pytest
from googleapiclient.http import HttpMockSequence

from integrations.local.mailbox import Incoming, message_store
from integrations.local.models_mail import LocalMailMessage

DAY = datetime.datetime(2026, 11, 10, 15, 12, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def mail_root(settings, tmp_path):
    settings.ROADSTAR_MAIL_ROOT = tmp_path / "mail"
    return settings.ROADSTAR_MAIL_ROOT


def store(connection, *, sender="Dana Whitfield <dana@juniperdental.test>", to=("sam@fernhill.test",), cc=(),
          subject="Rebrand for our second clinic", text="Could you quote a new logo?", at=DAY, box="inbox",
          thread=None, key=None, attachments=(), message_id="", in_reply_to="", references=""):
    return message_store(connection, Incoming(
        sender=sender, to=list(to), cc=list(cc), subject=subject, text=text, date=at, box=box, thread_key=thread,
        key=key, attachments=list(attachments), message_id=message_id, in_reply_to=in_reply_to,
        references=references,
    ))


def sent_copies(connection) -> list[LocalMailMessage]:
    return list(LocalMailMessage.objects.filter(connection=connection, box="sent").order_by("id"))


# --- Gmail ----------------------------------------------------------------------------------------------------


class Recording(HttpMockSequence):
    """HttpMockSequence that keeps each request (method, uri, body) it answered."""

    def __init__(self, answers):
        super().__init__(answers)
        self.requests = []

    def request(self, uri, method="GET", body=None, headers=None, redirections=1, connection_type=None):
        self.requests.append({"method": method, "uri": uri, "body": body, "headers": headers or {}})
        return super().request(uri, method, body, headers, redirections, connection_type)


def ok(body: dict) -> tuple[dict, str]:
    return {"status": "200"}, json.dumps(body)


def error(status: int, reason: str = "", message: str = "It failed") -> tuple[dict, str]:
    errors = [{"reason": reason, "message": message}] if reason else []
    return {"status": str(status)}, json.dumps({"error": {"code": status, "message": message, "errors": errors}})


def b64(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def headers(**values) -> list[dict]:
    names = {"message_id": "Message-ID"}
    return [{"name": names.get(k, k.replace("_", "-").title()), "value": v} for k, v in values.items()]


def gmail_message(mid, thread, *, sender="Dana Whitfield <dana@juniperdental.test>", to="sam@fernhill.test", cc="",
                  subject="Rebrand for our second clinic", text="Could you quote a new logo?", html=None,
                  at=DAY, labels=("INBOX",), attachments=(), message_id=None) -> dict:
    head = {"From": sender, "To": to, "Subject": subject, "Message-ID": message_id or f"<{mid}@mail.test>"}
    if cc:
        head["Cc"] = cc
    parts = [{"partId": "0.0", "mimeType": "text/plain", "filename": "", "body": {"size": len(text), "data": b64(text)},
              "headers": [{"name": "Content-Type", "value": "text/plain; charset=UTF-8"}]}]
    if html is not None:
        parts.append({"partId": "0.1", "mimeType": "text/html", "filename": "", "body": {"data": b64(html)}})
    body_parts = [{"partId": "0", "mimeType": "multipart/alternative", "filename": "", "body": {"size": 0},
                   "parts": parts}]
    for i, (name, mime, size) in enumerate(attachments, start=1):
        body_parts.append({"partId": str(i), "mimeType": mime, "filename": name,
                           "body": {"size": size, "attachmentId": f"ANGjdJ-{mid}-{i}"}})
    return {
        "id": mid, "threadId": thread, "labelIds": list(labels), "snippet": text[:100],
        "internalDate": str(int(at.timestamp() * 1000)),
        "payload": {"partId": "", "mimeType": "multipart/mixed", "filename": "",
                    "headers": [{"name": k, "value": v} for k, v in head.items()], "body": {"size": 0},
                    "parts": body_parts},
    }
