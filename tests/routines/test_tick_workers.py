"""Two worker processes tick at once over a hundred due routines: each fires exactly once. PostgreSQL only."""

import datetime
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from routines import services
from routines.models import Routine, RoutineRun

pytestmark = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="row locks with skip-locked are proven on PostgreSQL",
)


@pytest.mark.django_db(transaction=True)
def test_two_workers_fire_each_of_a_hundred_due_routines_exactly_once(org, keeper):
    for i in range(100):
        services.routine_add(org=org, agent=keeper, name=f"Routine {i}", when={"at": "0 9 * * 1"})
    past = timezone.now() - datetime.timedelta(minutes=1)
    Routine.objects.update(next_at_time=past, next_fire_at=past)
    db = settings.DATABASES["default"]
    env = {**os.environ, "SECRET_KEY": settings.SECRET_KEY,
           "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{connection.settings_dict['NAME']}"}
    workers = [
        subprocess.Popen([sys.executable, "manage.py", "routines_tick"], cwd=settings.BASE_DIR, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [w.communicate(timeout=120) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], [err[-2000:] for _, err in outputs]
    fired = [int(out.split()[-1]) for out, _ in outputs]
    assert sum(fired) == 100
    assert RoutineRun.objects.count() == 100
    assert set(Routine.objects.values_list("fired", flat=True)) == {1}
