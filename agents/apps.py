from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # make_agent's undo registers with core when the agent tools load; Undo loads them through this loader
        # (they bring the model client, so not before they are needed).
        from core.undo import undo_loader_register

        undo_loader_register(_load_agent_tools)


def _load_agent_tools() -> None:
    from agents.runtime import agent_tools  # noqa: F401
