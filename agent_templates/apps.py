from django.apps import AppConfig


class AgentTemplatesConfig(AppConfig):
    """Templates: ready-made agents, teams, departments and skills, Roadstar's own and the ones a workspace shared.

    Its layer is between routines and home: adding a template makes agents (agents), skills and routines
    (routines). So its tool group can't live in tools/groups/ (tools sits below agents); it registers with the
    tool registry here, when Django loads the app, before anything lists or runs a tool.
    """

    name = "agent_templates"
    verbose_name = "Templates"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agent_templates import tools  # noqa: F401  (registers the templates group and its undo)
