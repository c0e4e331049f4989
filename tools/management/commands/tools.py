import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tools import registry


class Command(BaseCommand):
    help = "List every registered tool: name, group, owner's yes, Home listing and input schema."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print one JSON list.")

    def handle(self, *args: Any, **options: Any) -> None:
        described = [tool.describe() for tool in sorted(registry.TOOLS.values(), key=lambda t: t.name)]
        if options["json"]:
            self.stdout.write(json.dumps(described, indent=1))
            return
        for tool in described:
            listing = tool["your_work"] or "—"
            self.stdout.write(f"{tool['name']:28} {tool['owners_yes']:8} {listing}")
