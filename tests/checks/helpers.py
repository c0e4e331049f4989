"""Building check requests in the shape of a check case, for tests that don't need a whole case file."""

from __future__ import annotations

from checks.types import CheckRequest

BUSINESS = {
    "name": "Fernhill Studio",
    "owner": "Sam Rivera",
    "owner_email": "sam@fernhill.test",
    "domains": ["fernhill.test"],
    "payment_details": [
        "IBAN GB33 BUKB 2020 1555 5555 55",
        "Routing 021000021, account 7720193844 (Fernhill Studio LLC)",
    ],
}
DANA = {"id": "8d2e6b14-3a7c-4f09-b5d1-6e0a9c3f7b22", "name": "Dana Whitfield", "emails": ["dana@juniperdental.test"],
        "company": "Juniper Dental", "alwaysAsk": False}
GREG = {"id": "a41c7e58-2f93-4b6d-8e10-5d7b3c9f2a61", "name": "Greg Hale", "emails": ["greg@juniperdental.test"],
        "company": "Juniper Dental", "alwaysAsk": True}
ROSA = {"id": "e2a9f4c1-6b07-4d38-a15e-93c0b7d2f846", "name": "Rosa Ortiz", "emails": ["rosa@ortizbakery.test"],
        "company": "Ortiz Bakery", "alwaysAsk": False}
DANA_KIM = {"id": "0f1e2d3c-4b5a-4697-8877-665544332211", "name": "Dana Kim", "emails": ["dana.kim@kimlaw.test"],
            "company": "Kim Law", "alwaysAsk": False}
CONTACTS = [DANA, GREG, ROSA]


def owner(text):
    return {"role": "owner", "text": text}


def routine(text, name="A routine"):
    return {"role": "routine", "name": name, "text": text}


def agent(text):
    return {"role": "agent", "text": text}


def read(text, source="mail:7c41e2d0:19a2"):
    return {"role": "read", "source": source, "text": text}


def handoff(task="", notes="", *owner_words):
    return {
        "role": "handoff",
        "from": "Client desk",
        "task": task,
        "notes": notes,
        "owner_words": [{"text": w, "where": "Client desk's chat", "at": "2026-11-10T16:05:00Z"} for w in owner_words],
    }


def send(to, text="Hi,\n\nThe signage is on track.\n\nSam", subject="Signage", **more):
    return {"tool": "mail.send", "input": {"to": list(to), "subject": subject, "text": text, **more}}


def request(conversation, action, *, contacts=None, made_here=(), business=None) -> CheckRequest:
    case = {
        "business": business or BUSINESS,
        "records": {"contacts": CONTACTS if contacts is None else contacts, "made_here": list(made_here)},
        "conversation": conversation,
        "action": action,
    }
    return CheckRequest.from_case(case)


def with_luhn_digit(body: str) -> str:
    """`body` with the check digit that makes it pass Luhn."""
    for d in "0123456789":
        digits = body + d
        total = 0
        for i, ch in enumerate(reversed(digits)):
            n = int(ch) * (2 if i % 2 else 1)
            total += n - 9 if n > 9 else n
        if total % 10 == 0:
            return digits
    raise AssertionError("unreachable")
