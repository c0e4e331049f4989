from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The agent tools register themselves (make_agent's undo with core among them) once the apps are loaded.
        from agents.runtime import agent_tools  # noqa: F401
