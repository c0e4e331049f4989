from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # ready(): the app registry isn't ready when apps.py is imported
        from agents import connected  # noqa: F401  (its receiver tells the conversations that asked for an app)
        from tools.help.library import add_page_source

        # The agent tools' docs page is written from their declarations here; the docs library is in tools/.
        # (The agent tools themselves, agents/agent_tools.py, are found by the tool registry, as tool groups are.)
        add_page_source(_agent_tool_pages)
        # A research table's run calls the model through agents (research is below it in the layers).
        from research.table_run import model_call_register

        model_call_register(_table_model_call)
        # The research writer and the followers woken by the owner's comments live here, above research: research
        # is handed them (research.page_services), never imports them.
        from research.page_services import comment_listener_register, writer_register

        writer_register(_research_page_start)
        comment_listener_register(_research_comment)


def _agent_tool_pages() -> dict[str, str]:
    # Imported when called, as the three below: apps.py is read before the models are, which these modules import.
    from agents.docs import agent_tool_pages

    return agent_tool_pages()


def _table_model_call(**kwargs):
    # Imported when called, as _agent_tool_pages says.
    from agents.tables import table_model_call

    return table_model_call(**kwargs)


def _research_page_start(page_id: str) -> None:
    # Imported when called, as _agent_tool_pages says.
    from agents.research_writer import start

    start(page_id)


def _research_comment(comment) -> None:
    # Imported when called, as _agent_tool_pages says.
    from agents.research_writer import wake_followers

    wake_followers(comment)
