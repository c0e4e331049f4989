"""The benches run as scripts (`python bench/scale.py`, what `make bench` runs): Python puts bench/ first on sys.path,
not the project's root, so each script puts the root there itself before it imports the project. An import of the
project above that line fails at once with ModuleNotFoundError (bench/scale.py did, from 2026-12-04 to 12-05, and
`make bench` stopped there). Read with `ast`, no bench is run: they take minutes and PostgreSQL."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The project's own top-level packages: an import of one of them needs the root on sys.path.
PROJECT = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists() or (p / "apps.py").exists()}
# Run in the Agents SDK's own venv, whose `agents` package is the SDK's, not the project's.
OTHER_VENV = {"sdk_anchor.py"}
# The scripts: what has a main (bench/common.py and the settings bench/pickup.py runs a worker with are imported).
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py")
                 if 'if __name__ == "__main__":' in p.read_text() and p.name not in OTHER_VENV)


def _module_level_imports_before_the_root(tree: ast.Module) -> list[tuple[int, str]]:
    """The module-level imports of project packages above the first `sys.path.insert(…)` (all of them, if none)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func) == "sys.path.insert":
            break
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        found += [(node.lineno, name) for name in names if name.partition(".")[0] in PROJECT]
    return found


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_bench_script_imports_the_project_only_after_putting_its_root_on_the_path(script):
    tree = ast.parse((ROOT / "bench" / script).read_text())
    assert _module_level_imports_before_the_root(tree) == []


def test_the_benches_make_bench_runs_are_scripts_read_here():
    assert {"run.py", "scale.py", "search_bench.py", "step_cost.py"} <= set(SCRIPTS)


def test_the_guard_finds_an_import_above_the_path_line():
    tree = ast.parse("import sys\nfrom core.inputs import as_uuid\nsys.path.insert(0, 'x')\nfrom bench import common\n")
    assert _module_level_imports_before_the_root(tree) == [(2, "core.inputs")]
