from django.apps import AppConfig


class AgentsConfig(AppConfig):
    # What this app hands the layers below it (the agent tools' docs pages, research's writer, comment listener and
    # table model) is in hooks.py; its agent tools are in agent_tools.py (core.registry says how both are found).
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # ready(): the app registry isn't ready when apps.py is imported
        from agents import connected  # noqa: F401  (its receiver tells the conversations that asked for an app)
