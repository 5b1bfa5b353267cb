"""The layout shows the architecture: folders by concept, small modules, no import circles.

Held by walking the package, as sqlite-utils' docs tests walk its commands: a new module that
breaks a rule fails here, naming it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import ROOT

PACKAGE = ROOT / "quizapp"
MAX_MODULES = 12
MAX_LINES = 400
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
FOLDERS = sorted({p.parent for p in MODULES})


def dotted(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


NAMES = {dotted(p): p for p in MODULES}


def imports_of(path: Path) -> set[str]:
    """Every quizapp module this one imports, at load time or under ``if TYPE_CHECKING:``: a
    type-only import is still a knot in the design."""
    package = dotted(path) if path.name == "__init__.py" else dotted(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in NAMES else base
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in NAMES and name != dotted(path)}


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    graph = {name: imports_of(path) for name, path in NAMES.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    return found


def test_no_import_circle_not_even_a_type_only_one():
    assert cycles() == []


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: str(f.relative_to(ROOT)))
def test_a_folder_holds_at_most_a_dozen_modules(folder):
    modules = [p.name for p in folder.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= MAX_MODULES, f"{folder.relative_to(ROOT)}: {len(modules)} modules; split it by concept"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_stays_under_400_lines(module):
    lines = len(module.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module.relative_to(ROOT)}: {lines} lines; split it along its concepts"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_name_does_not_repeat_its_folder(module):
    """calc/log/parse.py, not calc/logparse.py or calc/log/log_parse.py: the folder says it."""
    folder = module.parent.name
    stem = module.stem
    for concept in {folder, folder.rstrip("s")}:
        assert not (stem.startswith(concept + "_") or (stem.startswith(concept) and stem != concept
                                                         and len(stem) > len(concept) and folder != "quizapp")), \
            f"{module.relative_to(ROOT)} repeats its folder's name {folder!r}"
