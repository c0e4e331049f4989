"""What the contacts app registers (core.registry): the Undo of the owner's own edit of a contact."""

from contacts.services import OWNER_EDIT, undo_owner_edit
from core.undo import UNDOS, Undo

UNDOS.add(Undo(OWNER_EDIT, undo_owner_edit))
