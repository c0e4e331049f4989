from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The agent tools' docs page is written from their declarations here; the docs library is in tools/.
        from agents.docs import agent_tool_pages
        from tools.help.library import add_page_source

        add_page_source(agent_tool_pages)
