"""Signals the agents runtime sends, for other apps to act on (routines finish a run when its work is answered)."""

from django.dispatch import Signal

# Sent inside the transaction that answers a piece of work: `work` (agents.models.Work), `text` (the answer).
work_answered = Signal()
