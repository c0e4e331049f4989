"""Home and the chats: what waits for the owner, Your work with Undo, the answers to asks, the live parts."""

from django.urls import path

from home import settings_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("changes/<uuid:change_id>/undo", views.change_undo, name="change_undo"),
    path("cards/<uuid:card_id>/dismiss", views.card_dismiss, name="card_dismiss"),
    path("cards/<uuid:card_id>/try-again", views.card_try_again, name="card_try_again"),
    path("cards/<uuid:card_id>/budget", views.card_raise_budget, name="card_raise_budget"),
    path("cards/<uuid:card_id>/answer", views.card_answer, name="card_answer"),
    path("cards/<uuid:card_id>/template/add", views.card_template_add, name="card_template_add"),
    path("cards/<uuid:card_id>/template/share", views.card_template_share, name="card_template_share"),
    path("cards/<uuid:card_id>/template/no", views.card_template_no, name="card_template_no"),
    path("asks/<uuid:ask_id>/answer", views.ask_answer, name="ask_answer"),
    path("work/<uuid:work_id>/try-again", views.work_try_again, name="work_try_again"),
    path("help/model/", views.model_help, name="model_help"),
    path("settings/model/", settings_views.model_settings, name="model_settings"),
    path("settings/without-judge", views.without_judge_set, name="without_judge_set"),
    path("home/live/", views.home_live, name="home_live"),
    path("chat/", views.chats, name="chats"),
    path("chat/<uuid:agent_id>/", views.chat, name="chat"),
    path("chat/<uuid:agent_id>/live/", views.chat_live, name="chat_live"),
    path("chat/<uuid:agent_id>/threads/<uuid:conversation_id>/", views.thread, name="thread"),
]
