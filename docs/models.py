"""The projects' and docs' models are the records app's (`records.models`: a project's links point at contacts);
they are named here too, so `docs.models.Doc` is the same model."""

from records.models import Doc, DocNote, DocVersion, Project, ProjectLink

__all__ = ["Doc", "DocNote", "DocVersion", "Project", "ProjectLink"]
