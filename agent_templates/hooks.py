"""What the templates app registers (core.registry): the Undo of adding and of sharing a template. (Its tools are
in tool_groups.py, found by the tool registry's convention.)"""

from agent_templates.services import ADD_TOOL, SHARE_TOOL, undo_template_add, undo_template_share
from core.undo import UNDOS, Undo

UNDOS.add(Undo(ADD_TOOL, undo_template_add))
UNDOS.add(Undo(SHARE_TOOL, undo_template_share))
