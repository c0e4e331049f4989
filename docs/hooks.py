"""What the docs app registers (core.registry): the Undo of the owner's own edit of a project."""

from core.undo import UNDOS, Undo
from docs.services import PROJECT_OWNER_EDIT, undo_project_owner_edit

UNDOS.add(Undo(PROJECT_OWNER_EDIT, undo_project_owner_edit))
