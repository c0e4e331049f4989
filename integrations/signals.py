"""Hooks other parts of Roadstar listen to.

`connected` is sent after the transaction that made or renewed a connection commits, with:
- `org`: the Organization;
- `connection`: the Connection, status connected;
- `cards`: the connect / reconnect cards it resolved. Each card's `data["asked_by"]` is
  `{"agent_id", "conversation_id"}` of the first conversation that asked, and `data["askers"]` every one of them,
  so the agents runtime can tell each agent that asked (spec: "When the owner connects it, a note tells you").

    from integrations.signals import connected

    @receiver(connected)
    def tell_askers(sender, *, org, connection, cards, **kwargs): ...
"""

from django.dispatch import Signal

connected = Signal()
