from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The agent tools' docs page is written from their declarations here; the docs library is in tools/.
        from agents.docs import agent_tool_pages
        from core.undo import undo_loader_register
        from tools.help.library import add_page_source

        add_page_source(agent_tool_pages)
        # make_agent's undo registers with core when the agent tools load; Undo loads them through this loader
        # (they bring the model client, so not before they are needed).
        undo_loader_register(_load_agent_tools)


def _load_agent_tools() -> None:
    from agents.runtime import agent_tools  # noqa: F401
