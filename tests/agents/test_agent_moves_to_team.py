"""The Agent model moved from the agents app to team (below the records) with its table: a workspace migrated
from before the move keeps every agent and every row that points at one, and the database still holds the links."""

import uuid

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from tests.factories import OrganizationFactory

# Before the move: the state every app's migrations had reached when Agent still lived in agents.
BEFORE = [("team", None)]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor


@pytest.mark.django_db(transaction=True)
def test_a_workspace_from_before_the_move_keeps_its_agents_and_their_links():
    org = OrganizationFactory(name="Fernhill Studio")
    loader = migrate(BEFORE).loader
    loader.build_graph()
    old = loader.project_state(list(loader.applied_migrations)).apps
    OldAgent = old.get_model("agents", "Agent")  # noqa: N806  (a model class, named as one)
    boss = OldAgent.objects.create(id=uuid.uuid4(), organization_id=org.id, name="Roadstar", is_roadstar=True)
    desk = OldAgent.objects.create(id=uuid.uuid4(), organization_id=org.id, name="Front desk", reports_to=boss,
                                   job="Answers new and current clients")
    company = old.get_model("companies", "Company").objects.create(organization_id=org.id, name="Globex",
                                                                  handler=desk)
    project = old.get_model("docs", "Project").objects.create(organization_id=org.id, name="Desk's own", agent=desk)
    old.get_model("agents", "Conversation").objects.create(organization_id=org.id, agent=desk, kind="chat")
    agent_type, _ = ContentType.objects.get_or_create(app_label="agents", model="agent")
    Permission.objects.get_or_create(codename="change_agent", content_type=agent_type,
                                     defaults={"name": "Can change agent"})
    org.owner.user_permissions.add(Permission.objects.get(codename="change_agent", content_type=agent_type))

    migrate(None)

    from agents.models import Agent as AgentsAgent
    from records.models import Company, Project
    from team.models import Agent

    assert AgentsAgent is Agent
    moved = Agent.objects.get(id=desk.id)
    assert (moved.name, moved.job, moved.reports_to_id) == ("Front desk", "Answers new and current clients", boss.id)
    assert Company.objects.get(id=company.id).handler == moved
    assert Project.objects.get(id=project.id).agent == moved
    assert moved.conversations.get().kind == "chat"
    # The admin's history and the permissions given on agents follow the model.
    assert ContentType.objects.get_for_model(Agent).id == agent_type.id
    assert type(org.owner).objects.get(id=org.owner.id).has_perm("team.change_agent")

    # The table's constraints stayed: a handler that is no agent is refused.
    with pytest.raises(IntegrityError), transaction.atomic():
        Company.objects.filter(id=company.id).update(handler_id=uuid.uuid4())
        connection.check_constraints()
    moved.delete()
    assert Company.objects.get(id=company.id).handler is None
