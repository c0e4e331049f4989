from django.apps import AppConfig


class AgentTemplatesConfig(AppConfig):
    """Templates: ready-made agents, teams, departments and skills, Roadstar's own and the ones a workspace shared.

    Its layer is between routines and home: adding a template makes agents (agents), skills and routines
    (routines). So its tool group can't live in tools/groups/ (tools sits below agents); it is declared in
    `agent_templates/tool_groups.py`, which the tool registry finds by that name when Django loads the apps.
    """

    name = "agent_templates"
    verbose_name = "Templates"
    default_auto_field = "django.db.models.BigAutoField"
