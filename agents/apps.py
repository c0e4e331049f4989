from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agents import connected  # noqa: F401  (its receiver tells the conversations that asked for an app)
        from core.undo import undo_loader_register
        from tools.help.library import add_page_source

        # The agent tools' docs page is written from their declarations here; the docs library is in tools/.
        add_page_source(_agent_tool_pages)
        # make_agent's undo registers with core when the agent tools load; Undo loads them through this loader.
        undo_loader_register(_load_agent_tools)


# Both import when called: the agent tools bring the model client, which django.setup() should not load (the
# worker loads it once before it forks: core/management/commands/worker.py).
def _agent_tool_pages() -> dict[str, str]:
    from agents.docs import agent_tool_pages

    return agent_tool_pages()


def _load_agent_tools() -> None:
    from agents.runtime import agent_tools  # noqa: F401
