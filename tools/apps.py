from django.apps import AppConfig


class ToolsConfig(AppConfig):
    name = "tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every group module by convention (tools/groups/*.py, each app's tool_groups.py), once per process: the
        # tools, and the undo handlers they hand core, are there before anything lists, runs or undoes a tool.
        from tools import registry

        registry.load_all()
