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
        # A research table's run calls the model through agents (research is below it in the layers).
        from research.table_run import model_call_register

        model_call_register(_table_model_call)


# Both import when called: the agent tools bring the model client, which django.setup() should not load (the
# worker loads it once before it forks: core/management/commands/worker.py).
def _agent_tool_pages() -> dict[str, str]:
    from agents.docs import agent_tool_pages

    return agent_tool_pages()


def _load_agent_tools() -> None:
    from agents.runtime import agent_tools  # noqa: F401


def _table_model_call(**kwargs):
    from agents.tables import table_model_call

    return table_model_call(**kwargs)
