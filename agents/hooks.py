"""What the agents app hands the layers below it (core.registry), imported once when Django loads the apps.

The agent tools' docs page is written from their declarations here; the docs library is in tools/. A research
table's run calls the model through agents, and the research writer and the followers woken by the owner's
comments live here too: research, below agents in the layers, is handed them and never imports them.

Each function imports its module when called: these modules import the runtime, which loading the apps should not.
"""

from research.page_services import COMMENT_LISTENERS, RESEARCH_WRITERS, CommentListener, ResearchWriter
from research.table_run import TABLE_MODEL, TableModel
from tools.help.library import PAGE_SOURCES, PageSource


def _agent_tool_pages() -> dict[str, str]:
    from agents.docs import agent_tool_pages

    return agent_tool_pages()


def _table_model_call(**kwargs):
    from agents.tables import table_model_call

    return table_model_call(**kwargs)


def _research_page_start(page_id: str) -> None:
    from agents.research_writer import start

    start(page_id)


def _research_comment(comment) -> None:
    from agents.research_writer import wake_followers

    wake_followers(comment)


PAGE_SOURCES.add(PageSource("agent_tools", _agent_tool_pages))
TABLE_MODEL.add(TableModel("agents", _table_model_call))
RESEARCH_WRITERS.add(ResearchWriter("agents", _research_page_start))
COMMENT_LISTENERS.add(CommentListener("agents.followers", _research_comment))
