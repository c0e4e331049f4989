"""The owner's pages: /contacts/, /companies/, /docs/, /agents/, /routines/, /research/, /newsfeed/ and /tables/
(Home and chats are roadstar's), and Roadstar's own docs at /help/, /llms.txt and /tools.json."""

from django.urls import path, re_path

from pages import apps_views, help_views, newsfeed, research, tables, views, workspace_views

app_name = "pages"

urlpatterns = [
    path("contacts/", views.contacts, name="contacts"),
    path("contacts/add", views.contact_add, name="contact_add"),
    path("contacts/<uuid:contact_id>/", views.contact, name="contact"),
    path("contacts/<uuid:contact_id>/edit", views.contact_edit, name="contact_edit"),
    path("contacts/<uuid:contact_id>/log/<uuid:entry_id>/undo", views.contact_log_undo, name="contact_log_undo"),
    path("companies/", views.companies, name="companies"),
    path("companies/add", views.company_add, name="company_add"),
    path("companies/<uuid:company_id>/", views.company, name="company"),
    path("companies/<uuid:company_id>/edit", views.company_edit, name="company_edit"),
    path("companies/<uuid:company_id>/log/<uuid:entry_id>/undo", views.company_log_undo, name="company_log_undo"),
    path("docs/", views.docs, name="docs"),
    path("projects/add", views.project_add, name="project_add"),
    path("projects/<uuid:project_id>/edit", views.project_edit, name="project_edit"),
    path("docs/<uuid:doc_id>/", views.doc, name="doc"),
    path("docs/<uuid:doc_id>/versions/<int:number>/", views.doc_version, name="doc_version"),
    path("docs/<uuid:doc_id>/notes", views.doc_note, name="doc_note"),
    # The owner's mail, files, calendar and invoices, read-only, from whichever app is connected. A local file's
    # own address (/files/<account>/<id>, integrations/providers/local_files.py) is its page here.
    path("mail/", apps_views.mail, name="mail"),
    path("mail/<str:thread_id>/", apps_views.mail_thread, name="mail_thread"),
    path("files/", apps_views.files, name="files"),
    path("files/<str:account_key>/<str:file_id>", apps_views.file, name="file"),
    path("calendar/", apps_views.calendar, name="calendar"),
    path("invoices/", apps_views.invoices, name="invoices"),
    path("invoices/<str:invoice_id>/", apps_views.invoice, name="invoice"),
    path("agents/", views.agents, name="agents"),
    path("agents/<uuid:agent_id>/budget", views.agent_budget, name="agent_budget"),
    path("routines/", views.routines, name="routines"),
    path("workspace/", workspace_views.workspace, name="workspace"),
    path("workspace/<str:folder>/<path:path>", workspace_views.workspace_file, name="workspace_file"),
    # Any file by its listing key (its name's bytes in hex): a name no URL path can carry (a line break, bytes that
    # aren't UTF-8) is still downloaded and deleted from the page.
    path("workspace-files/<str:folder>/<str:key>", workspace_views.workspace_file_by_key,
         name="workspace_file_by_key"),
    path("workspace-files/<str:folder>/<str:key>/delete", workspace_views.workspace_file_delete,
         name="workspace_file_delete"),
    path("routines/<int:routine_id>/on", views.routine_on, name="routine_on"),
    path("research/", research.research_pages, name="research_pages"),
    path("research/<uuid:page_id>/", research.research_page, name="research_page"),
    path("research/<uuid:page_id>/live", research.research_page_live, name="research_page_live"),
    path("research/<uuid:page_id>/comments", research.research_page_comment, name="research_page_comment"),
    path("research/<uuid:page_id>/star", research.research_page_star, name="research_page_star"),
    path("newsfeed/", newsfeed.newsfeed, name="newsfeed"),
    path("newsfeed/groups", newsfeed.research_groups, name="research_groups"),
    path("newsfeed/feeds", newsfeed.feed_add, name="feed_add"),
    path("newsfeed/feeds/<uuid:feed_id>/remove", newsfeed.feed_remove, name="feed_remove"),
    path("tables/", tables.tables, name="tables"),
    path("tables/<uuid:dataset_id>/", tables.table, name="table"),
    path("tables/<uuid:dataset_id>/accept", tables.table_accept, name="table_accept"),
    path("tables/<uuid:dataset_id>/edit", tables.table_edit, name="table_edit"),
    path("tables/<uuid:dataset_id>/sources/<uuid:source_id>/", tables.table_source, name="table_source"),
    # Roadstar's own docs (public: see pages/help_views.py)
    path("help/", help_views.help_page, name="help"),
    re_path(r"^help/(?P<path>[a-z0-9_/-]+)\.md$", help_views.help_markdown, name="help_markdown"),
    re_path(r"^help/(?P<path>[a-z0-9_/-]+/)$", help_views.help_page, name="help_page"),
    path("llms.txt", help_views.llms_txt, name="llms_txt"),
    path("llms-full.txt", help_views.llms_full_txt, name="llms_full_txt"),
    path("tools.json", help_views.tools_json, name="tools_json"),
]
