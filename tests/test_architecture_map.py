"""ARCHITECTURE.md stays a map: small enough to read in one sitting, and every link in it leads to a file of the
project (a link out of the project, such as ../shared, is not there on a clone)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "ARCHITECTURE.md"
MOST_BYTES = 16_000
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def relative_links(text: str) -> list[str]:
    return [target for target in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:|#", target)]


def test_the_map_stays_under_its_size():
    assert len(MAP.read_bytes()) < MOST_BYTES


def test_every_relative_link_is_a_file_of_the_project():
    links = relative_links(MAP.read_text(encoding="utf-8"))
    assert links, "the map links to where the details live"
    for target in links:
        path = (ROOT / unquote(target.split("#", 1)[0])).resolve()
        assert path.is_relative_to(ROOT), f"{target} leads out of the project"
        assert path.is_file(), f"{target} is no file of the project"


def test_a_link_out_of_the_project_or_to_no_file_is_found():
    assert relative_links("[a](core/registry.py) [b](https://example.com) [c](#layers) [d](../shared/x.md)") == [
        "core/registry.py", "../shared/x.md"]
