"""Each workspace's runs are made as a host user of its own (when Roadstar is root), kept in the database so no two
workspaces ever share one: base + crc32(id) % 100,000 let two share a process budget and each other's files."""

import pytest
from django.db import IntegrityError, transaction

from core.actors import Actor
from tests.factories import AgentFactory, OrganizationFactory
from workspace import folders, run_users
from workspace.models import RunUser

pytestmark = pytest.mark.django_db


def test_each_workspace_gets_its_own_uid_in_order_and_keeps_it(org, other_org, settings):
    settings.WORKSPACE_UID_BASE = 300_000
    first = run_users.run_user_for(org=org)
    second = run_users.run_user_for(org=other_org)
    assert (first, second) == (300_000, 300_001)
    assert run_users.run_user_for(org=org) == first  # kept, not worked out again
    assert RunUser.objects.get(organization=org).uid == first


def test_a_taken_uid_is_never_handed_out_again(org, other_org, settings):
    settings.WORKSPACE_UID_BASE = 300_000
    RunUser.objects.create(organization=other_org, uid=300_000)
    assert run_users.run_user_for(org=org) == 300_001
    many = [OrganizationFactory(name=f"Studio {i}") for i in range(30)]
    uids = [run_users.run_user_for(org=o) for o in many]
    assert len(set(uids)) == 30 and 300_000 not in uids and 300_001 not in uids
    with pytest.raises(IntegrityError), transaction.atomic():
        RunUser.objects.create(organization=OrganizationFactory(name="Late"), uid=uids[0])


def test_a_racing_first_use_takes_the_next_uid(org, other_org, settings, monkeypatch):
    # Another process took the number this one read as free between its read and its insert: the unique uid turns
    # this insert away, and the next number is taken.
    settings.WORKSPACE_UID_BASE = 300_000
    real = RunUser.objects.aggregate
    raced = []

    def aggregate(*args, **kwargs):
        found = real(*args, **kwargs)
        if not raced:
            raced.append(1)
            RunUser.objects.create(organization=other_org, uid=300_000)
        return found

    monkeypatch.setattr(RunUser.objects, "aggregate", aggregate)
    assert run_users.run_user_for(org=org) == 300_001


def test_the_run_user_is_the_workspaces_own_when_root(org, other_org, monkeypatch, settings):
    settings.WORKSPACE_UID_BASE = 300_000
    monkeypatch.setattr(folders.os, "geteuid", lambda: 0)
    ours = folders.place_for(org=org, actor=Actor.for_agent(AgentFactory(organization=org, name="A"))).uid
    theirs = folders.place_for(org=other_org, actor=Actor.for_agent(AgentFactory(organization=other_org))).uid
    assert ours != theirs and {ours, theirs} == {300_000, 300_001}
    monkeypatch.setattr(folders.os, "geteuid", lambda: 1000)
    assert folders.place_for(org=org, actor=Actor.for_agent(AgentFactory(organization=org, name="B"))).uid is None
