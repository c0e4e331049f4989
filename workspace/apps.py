from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace (the agents' sandboxed computer)"

    def ready(self):
        # One plain, logged error at start when this machine can't sandbox (no bubblewrap, or namespaces refused):
        # the tools then answer `unsupported`, never run unsandboxed. The probe is one short bwrap run.
        from workspace import sandbox

        sandbox.probe_at_start()
