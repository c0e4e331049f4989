"""Read-modify-write under the row's lock (core.locking): writers that start from the same old row at the
same moment each merge into what the last one wrote. Real threads, on SQLite and on PostgreSQL (see
tests/concurrency.py)."""

from __future__ import annotations

import pytest

from agents import services as agent_services
from agents.models import Agent
from core.actors import Actor
from core.context import ToolContext
from core.locking import lock
from records.models import Contact, LogEntry
from routines import services as routine_services
from routines.models import Routine, Skill
from tests.concurrency import all_at_once, in_a_thread, threads_on_a_file
from tests.factories import AgentFactory, ContactFactory, OrganizationFactory
from tools.pipeline import use_tool

WRITERS = 12


@pytest.fixture
def workspace(transactional_db):
    org = OrganizationFactory(name="Fernhill Studio", owner_name="Sam Rivera", check_enabled=False)
    AgentFactory(organization=org, name="Roadstar", is_roadstar=True)
    return org


def test_notes_kept_at_the_same_time_are_all_kept(workspace):
    desk = AgentFactory(organization=workspace, name="Client desk")
    stale = [Agent.objects.get(id=desk.id) for _ in range(WRITERS)]
    with threads_on_a_file():
        results = all_at_once([
            (lambda a=a, i=i: agent_services.agent_remember(agent=a, note=f"Note {i}")) for i, a in enumerate(stale)
        ])
        notes = in_a_thread(lambda: Agent.objects.get(id=desk.id).notes)
    assert [r for r in results if isinstance(r, Exception)] == []
    assert sorted(notes) == sorted(f"Note {i}" for i in range(WRITERS))


def test_changing_an_agent_keeps_a_note_kept_since_it_was_read(workspace):
    desk = AgentFactory(organization=workspace, name="Client desk")
    read_before = Agent.objects.get(id=desk.id)
    agent_services.agent_remember(agent=Agent.objects.get(id=desk.id), note="Sign off as Sam")
    agent_services.agent_change(org=workspace, actor=Actor.for_user(workspace.owner), agent=read_before,
                                changes={"job": "Answers clients"})
    assert Agent.objects.get(id=desk.id).notes == ["Sign off as Sam"]


def test_contact_updates_through_the_tools_at_the_same_time_all_survive(workspace):
    desk = AgentFactory(organization=workspace, name="Client desk")
    contact = ContactFactory(organization=workspace, name="Dana Whitfield")
    ctx = ToolContext(org=workspace, actor=Actor.for_agent(desk), conversation_id="thread-1")
    with threads_on_a_file():
        results = all_at_once([
            (lambda i=i: use_tool(ctx, "contacts.update", {"contactId": str(contact.id), "fields": {f"f{i}": "x"}}))
            for i in range(WRITERS)
        ])
        fields = in_a_thread(lambda: Contact.objects.get(id=contact.id).fields)
    assert [r for r in results if "error" in r] == []
    assert fields == {f"f{i}": "x" for i in range(WRITERS)}


def test_job_title_and_phone_updates_at_the_same_time_all_survive_each_logged_from_the_one_before(workspace):
    # Name, phone and job title are written by compare-and-set (core.locking.set_if_unchanged), not under lock():
    # each writer's log entry starts from what the writer before it wrote, and one field's writes never undo the
    # other's.
    desk = AgentFactory(organization=workspace, name="Client desk")
    contact = ContactFactory(organization=workspace, name="Dana Whitfield", job_title="J", phone="P")
    ctx = ToolContext(org=workspace, actor=Actor.for_agent(desk), conversation_id="thread-1")
    given = [("jobTitle", f"J{i}") if i % 2 else ("phone", f"P{i}") for i in range(WRITERS)]
    with threads_on_a_file():
        results = all_at_once([
            (lambda key=key, value=value: use_tool(ctx, "contacts.update", {"contactId": str(contact.id), key: value}))
            for key, value in given
        ])
        row = in_a_thread(lambda: Contact.objects.values("job_title", "phone").get(id=contact.id))
        log = in_a_thread(lambda: list(LogEntry.objects.filter(contact_id=contact.id).values_list("text", "before",
                                                                                                   "after")))
    assert [r for r in results if "error" in r] == []
    for words, start, attr in (("job title", "J", "job_title"), ("phone", "P", "phone")):
        steps = {before: after for text, before, after in log if text == f"Changed {words}"}
        chain, value = [], start
        while value in steps:
            value = steps.pop(value)
            chain.append(value)
        assert (len(chain), steps, value) == (WRITERS // 2, {}, row[attr])


def test_skill_changes_at_the_same_time_each_leave_a_history_entry(workspace):
    desk = AgentFactory(organization=workspace, name="Client desk")
    skill = routine_services.skill_add(org=workspace, agent=desk, name="Onboard a client", about="", steps="1. Call")
    stale = [Skill.objects.get(id=skill.id) for _ in range(WRITERS)]
    with threads_on_a_file():
        all_at_once([
            (lambda s=s, i=i: routine_services.skill_change(skill=s, name=None, about=None, steps=f"{i}. Call",
                                                             why=f"change {i}"))
            for i, s in enumerate(stale)
        ])
        history = in_a_thread(lambda: Skill.objects.get(id=skill.id).history)
    assert sorted(h["why"] for h in history[1:]) == sorted(f"change {i}" for i in range(WRITERS))


def test_a_routine_fired_at_the_same_time_counts_every_firing(workspace):
    desk = AgentFactory(organization=workspace, name="Client desk")
    routine = routine_services.routine_add(org=workspace, agent=desk, name="Overdue",
                                           when={"keys": ["kind:invoice.overdue"]})
    stale = [Routine.objects.select_related("organization", "agent", "skill").get(id=routine.id)
             for _ in range(WRITERS)]
    with threads_on_a_file():
        all_at_once([(lambda r=r: routine_services.routine_fire(routine=r, started_by="test")) for r in stale])
        fired = in_a_thread(lambda: Routine.objects.get(id=routine.id).fired)
    assert fired == WRITERS


def test_lock_outside_a_transaction_is_a_mistake(transactional_db):
    with pytest.raises(RuntimeError, match="outside a transaction"):
        lock(ContactFactory(name="Dana"))
