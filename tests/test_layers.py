"""The import layers (ARCHITECTURE.md, "Layers"): an app imports only apps below it.

Every .py file of every app is read with `ast`: each `import x`, `from x import y` and
`importlib.import_module("x")` / `import_string("x.y")` with a literal name, at module level, inside functions and
under `if TYPE_CHECKING:` alike (a type-only import is still a dependency: the module can't be read without the
other app). A model relation named by label (`ForeignKey("agents.Agent")`) counts too: the table can't exist
without the other app's. An import of an app in a higher layer, or of another app in the same layer, is a
violation.

The violations that exist today are listed once in KNOWN_DEBTS with why; the list only shrinks: a new violation
fails, and so does a listed debt that was paid off (remove its line). An app that is not in LAYERS fails until it
is placed there. `tests/`, `bench/` and `scripts/` may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top. An app may import the apps of the layers below its own, and no other.
LAYERS: list[set[str]] = [
    {"core"},                                   # Organization, Change, Card, ToolError, the tool context, time zone
    {"team"},                                   # the Agent row: who the agents are (the records link to it)
    {"records"},                                # the owner's records' models: their tables point at each other
    {"contacts", "docs"},                       # contacts: people, their open items and log; docs: projects, docs
    {"companies"},                              # companies, their people and timeline (on the contacts' log)
    {"checks"},                                 # the owner's yes
    {"integrations"},                           # the owner's apps (mail, files, calendar, books), the web
    {"research"},                               # public research (SEC filings, news feeds, pages, tables) over the
                                                # web's fetcher
    {"workspace", "search"},                    # the agents' sandboxed computer; search over records, copies and
                                                # research's pages and tables
    {"tools"},                                  # the tool registry, catalog and use_tool pipeline
    {"agents"},                                 # agents, conversations, the turn
    {"routines"},                               # triggers, skills, the tick
    {"agent_templates"},                        # templates: adding one makes agents, skills and routines
    {"home", "pages", "api", "mcp_server"},     # what the owner and the outside world see
    {"roadstar"},                               # the project: settings, urls, asgi
]
EXEMPT = {"tests", "bench", "scripts"}

# (file, app it imports): why it still does. Pay one off by moving the code down or passing a function in, then
# delete its line here.
KNOWN_DEBTS: dict[tuple[str, str], str] = {}

# Calls whose literal argument names a module: importlib.import_module("x"), django's import_string("x.y").
DYNAMIC_IMPORTS = {"import_module", "import_string", "__import__"}
# Model fields whose literal first argument names another app's model by label: "agents.Agent".
RELATIONS = {"ForeignKey", "OneToOneField", "ManyToManyField"}


def layer_of() -> dict[str, int]:
    return {app: i for i, apps in enumerate(LAYERS) for app in apps}


def project_packages() -> set[str]:
    return {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith(".")}


def apps() -> set[str]:
    return project_packages() - EXEMPT


def app_labels() -> dict[str, str]:
    """Django app label -> package: an app's label is its name unless its apps.py sets `label = "..."`."""
    labels = {app: app for app in apps()}
    for app in apps():
        config = ROOT / app / "apps.py"
        if config.is_file():
            for node in ast.walk(ast.parse(config.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "label" for t in node.targets)
                        and isinstance(node.value, ast.Constant)):
                    labels[node.value.value] = app  # core's label is "roadstar": its tables kept their names
    return labels


def related_apps(tree: ast.AST, labels: dict[str, str]):
    """(line, package) for every model relation that names another app's model by label."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            first = node.args[0]
            if name in RELATIONS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                label = first.value.split(".")[0]
                if "." in first.value and label in labels:
                    yield node.lineno, labels[label], f"{first.value} (a {name})"


def imported_modules(tree: ast.AST):
    """(line, dotted module name) for every absolute import in the tree, wherever it is."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                yield node.lineno, node.module
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            first = node.args[0]
            if name in DYNAMIC_IMPORTS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield node.lineno, first.value


def app_imports() -> list[tuple[str, int, str, str, str]]:
    """(file, line, importing app, imported app, module) for every import of one project app by another."""
    packages = apps()
    labels = app_labels()
    found = []
    for app in sorted(packages):
        for path in sorted((ROOT / app).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
            for line, module in imported_modules(tree):
                target = module.split(".")[0]
                if target in packages and target != app:
                    found.append((rel, line, app, target, module))
            for line, target, relation in related_apps(tree, labels):
                if target != app:
                    found.append((rel, line, app, target, relation))
    return found


def violations() -> dict[tuple[str, str], list[str]]:
    """(file, imported app) -> where, for every import that goes up a layer or across one."""
    layer = layer_of()
    out: dict[tuple[str, str], list[str]] = {}
    for rel, line, app, target, module in app_imports():
        if app not in layer or target not in layer:
            continue  # test_every_app_has_a_layer says so
        upward = layer[target] > layer[app]
        across = layer[target] == layer[app]
        if upward or across:
            out.setdefault((rel, target), []).append(f"{rel}:{line} imports {module}")
    return out


def test_every_app_has_a_layer():
    listed = [app for layer in LAYERS for app in layer]
    assert len(listed) == len(set(listed)), "An app is in LAYERS twice: keep it in one layer."
    placed = set(layer_of())
    unplaced = sorted(apps() - placed)
    assert not unplaced, (
        f"{', '.join(unplaced)} is not in LAYERS (tests/test_layers.py): place it at the lowest layer that holds "
        "what it imports, and add it to ARCHITECTURE.md's Layers."
    )
    gone = sorted(placed - apps())
    assert not gone, f"LAYERS names {', '.join(gone)}, which is no package here any more: remove it."


def test_no_app_imports_a_higher_or_sibling_app_beyond_the_known_debts():
    layer = layer_of()
    new = {key: where for key, where in violations().items() if key not in KNOWN_DEBTS}
    lines = []
    for (rel, target), where in sorted(new.items()):
        app = rel.split("/")[0]
        how = "a higher layer" if layer[target] > layer[app] else "the same layer"
        lines.append(f"{where[0]}: {app} may not import {target} ({how}){' and more' if len(where) > 1 else ''}")
    assert not lines, (
        "Imports against the layers (an app imports only apps below it; see ARCHITECTURE.md, Layers). Move the code "
        "down a layer, or pass the function in from above:\n" + "\n".join(lines)
    )


def test_every_known_debt_still_exists():
    paid = sorted(set(KNOWN_DEBTS) - set(violations()))
    assert not paid, (
        "Paid off, so remove from KNOWN_DEBTS in tests/test_layers.py: "
        + ", ".join(f"{rel} -> {target}" for rel, target in paid)
    )


def test_the_scan_sees_every_kind_of_import():
    """The scan itself: each form of import is found, wherever it is written."""
    source = (
        "import agents.models\n"
        "from tools.registry import Tool\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from routines.models import Routine\n"
        "def f():\n"
        "    import home.views\n"
        "    importlib.import_module('pages.views')\n"
        "    import_string('api.views.x')\n"
        "from . import sibling\n"
    )
    found = {module for _, module in imported_modules(ast.parse(source))}
    assert found == {"agents.models", "tools.registry", "typing", "routines.models", "home.views", "pages.views",
                     "api.views.x"}
    relations = "handler = models.ForeignKey('agents.Agent', null=True)\norg = ForeignKey('roadstar.Organization')\n"
    labels = {"agents": "agents", "roadstar": "core"}
    assert [(app, why) for _, app, why in related_apps(ast.parse(relations), labels)] == [
        ("agents", "agents.Agent (a ForeignKey)"), ("core", "roadstar.Organization (a ForeignKey)")]
