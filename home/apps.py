from django.apps import AppConfig


class HomeConfig(AppConfig):
    """Home at the top: what waits for the owner, the agents' work, Undo, the chats, the live page."""

    name = "home"
    verbose_name = "Home"
    default_auto_field = "django.db.models.BigAutoField"
