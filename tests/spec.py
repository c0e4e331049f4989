"""Where the tests find the read-only spec: shared/ beside the repository (as on every machine and in CI).

A fresh clone with nothing beside it has no shared/: the tests that hold the build to the spec word for word
then skip, saying why, and every other test runs as usual. Use `spec_tools()`, `spec_page()` and
`shared_file()` inside a test (they skip it when shared/ is absent) and `for_each()` around what a
`parametrize` reads from the spec at collection (one skipped case instead of an error).
"""

import json
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings

SHARED = Path(settings.BASE_DIR).parent / "shared"
SPEC = SHARED / "spec"
ABSENT = (f"the spec conformance tests read {SHARED} (the read-only spec and check cases beside the "
          "repository, as in CI), which is absent here")


def present() -> bool:
    return (SPEC / "tools.json").is_file()


needs_shared = pytest.mark.skipif(not present(), reason=ABSENT)


def _skip_unless_present() -> None:
    if not present():
        pytest.skip(ABSENT)


@cache
def _tools() -> dict[str, dict]:
    return {t["name"]: t for t in json.loads((SPEC / "tools.json").read_text())} if present() else {}


def spec_tools() -> dict[str, dict]:
    """spec/tools.json by tool name, in the spec's order."""
    _skip_unless_present()
    return _tools()


def spec_tool_names(keep: Callable[[dict], bool] = lambda t: True) -> list[str]:
    """The names of the spec's tools that `keep` keeps, in the spec's order, for a parametrize at collection:
    a list with one skipped case when shared/ is absent."""
    return for_each(name for name, t in _tools().items() if keep(t))


def for_each(values: Iterable) -> list:
    values = list(values)
    return values if present() else [pytest.param(None, marks=pytest.mark.skip(reason=ABSENT), id="no-shared")]


def spec_page(relative: str) -> str:
    _skip_unless_present()
    return (SPEC / relative).read_text()


def shared_file(relative: str) -> Path:
    """A file under shared/ (for example check-cases/dev.jsonl); the test skips when shared/ is absent."""
    _skip_unless_present()
    return SHARED / relative


def _input_rows(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """A tools page's input tables, `{tool: {input: {column: cell}}}`: a group tool's section opens with its
    `group.action` line, an agent tool's with its `## name` heading."""
    import re

    tables: dict[str, dict[str, dict[str, str]]] = {}
    current, columns = None, None
    for line in text.splitlines():
        heading = re.match(r"^## (\S+)\s*$", line)
        if heading:
            current, columns = heading.group(1), None
            continue
        named = re.match(r"^`([\w.]+)` · ", line)
        if named:
            current = named.group(1)
            continue
        if line.startswith("| Input |"):
            columns = [c.strip() for c in line.strip().strip("|").split("|")]
            continue
        if columns and line.startswith("|"):
            if not line.startswith("| ---"):
                row = dict(zip(columns, (c.strip() for c in line.strip().strip("|").split("|")), strict=False))
                tables.setdefault(str(current), {})[row["Input"].strip("`")] = row
        elif columns:
            columns = None
    return tables


def spec_input_words() -> dict[str, dict[str, str]]:
    """Every input spec/tools/*.md says what it is ("What it is"), `{tool: {input: words}}`, where a nested input
    is named by its path (`when.check.everyMinutes`)."""
    _skip_unless_present()
    words: dict[str, dict[str, str]] = {}
    for page in sorted((SPEC / "tools").glob("*.md")):
        for tool, rows in _input_rows(page.read_text()).items():
            for name, row in rows.items():
                if row.get("What it is"):
                    words.setdefault(tool, {})[name] = row["What it is"]
    return words
