from django.apps import AppConfig


class ToolsConfig(AppConfig):
    name = "tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Every group registers its tools, and their undo handlers with core, once the apps are loaded: Undo
        # (core.services.change_undo) finds them without naming this app.
        from tools import registry

        registry.load_all()
