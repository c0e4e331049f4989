from django.apps import AppConfig


class ToolsConfig(AppConfig):
    name = "tools"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Undo (core.services.change_undo) loads the tool groups, which register their undo handlers with core,
        # through this loader: core names no app above it, and the groups load only when first needed.
        from core.undo import undo_loader_register

        undo_loader_register(_load_tool_groups)


def _load_tool_groups() -> None:
    from tools import registry

    registry.load_all()
