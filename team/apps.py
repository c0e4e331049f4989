from django.apps import AppConfig


class TeamConfig(AppConfig):
    """Who the agents are: the Agent row, below the records so a company's handler and an agent's own project can
    link to it. What agents do (conversations, the turn, their tools) is the agents app, above tools."""

    name = "team"
    verbose_name = "Team"
    default_auto_field = "django.db.models.BigAutoField"
