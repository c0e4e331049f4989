"""Where the tests find the read-only spec: shared/ beside the repository (as on every machine and in CI)."""

import json
from functools import cache
from pathlib import Path

from django.conf import settings

SHARED = Path(settings.BASE_DIR).parent / "shared"
SPEC = SHARED / "spec"


@cache
def spec_tools() -> dict[str, dict]:
    return {t["name"]: t for t in json.loads((SPEC / "tools.json").read_text())}


def spec_page(relative: str) -> str:
    return (SPEC / relative).read_text()
