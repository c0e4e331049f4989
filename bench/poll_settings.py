"""The pickup bench's "before": django-q2's own ORM broker, polled every 0.05 s, with no wake-up on enqueue.

`bench/pickup.py` runs the worker with these settings and with the project's (the waking broker, roadstar/broker.py)
in turn, against the same web server and database, so the two are compared in one run.
"""

from roadstar.settings.development import *  # noqa: F403
from roadstar.settings.development import Q_CLUSTER

Q_CLUSTER = {**Q_CLUSTER, "broker_class": None, "poll": 0.05}
