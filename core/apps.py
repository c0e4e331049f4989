from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The bottom layer: the workspace, Your work and the cards, who acts, the error kinds, the tool context.

    Its label stays `roadstar` (the app these models were first made in), so their tables, their migrations and
    every `"roadstar.Organization"` reference stand unchanged.
    """

    name = "core"
    label = "roadstar"
    verbose_name = "Roadstar"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every installed app's hooks module, once per process, before anything is served: what each app hands the
        # layers below it is there before they call it (core.registry says why a registry, and which modules).
        from core.registry import HOOKS, autodiscover

        autodiscover(HOOKS)
