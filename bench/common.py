"""What the benchmarks share: a fresh workspace of their own."""


def make_workspace(name: str):
    from django.contrib.auth import get_user_model

    from agents.models import Agent
    from core.models import Organization

    user = get_user_model().objects.create_user(username=name, password="bench-pass")
    org = Organization.objects.create(name=name, owner=user, owner_name="Sam Rivera", check_enabled=True)
    Agent.objects.create(organization=org, name="Roadstar", is_roadstar=True)
    agent = Agent.objects.create(organization=org, name="Client desk")
    return user, org, agent
