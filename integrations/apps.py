from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "integrations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # ready(): the app registry isn't ready when apps.py is imported
        from contacts.selectors import timeline_provider_register
        from integrations import mail_hold  # noqa: F401  (registers itself as a held-lines source)
        from integrations.mail_timeline import mail_timeline
        from integrations.meetings import meeting_timeline

        # Held emails show on Home with their countdown: the mail hold registers itself as a held-lines source on
        # import. A contact's timeline reads the mail and calendar apps: the contacts app (a layer below) is given
        # the providers here rather than importing this app.
        timeline_provider_register("mail", mail_timeline)
        timeline_provider_register("calendar", meeting_timeline)
