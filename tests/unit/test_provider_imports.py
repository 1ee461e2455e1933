"""The provider modules import one another one way only, lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import ragwire.providers

PACKAGE = Path(ragwire.providers.__file__).parent


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragwire.providers"):
            found.add(node.module)
            # `from ragwire.providers import onnx_export` names a module too
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ragwire.providers"))
    modules = {f"ragwire.providers.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return found & modules


def test_no_import_circle_between_the_provider_modules():
    # Regression: embeddings imported onnx and onnx_export, and onnx imported embeddings back.
    graph = {
        f"ragwire.providers.{p.stem}": _imports(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"
    }
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, "import circle: " + " -> ".join((*path, module))
        if module in done:
            return
        for target in graph.get(module, ()):
            visit(target, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
    assert graph["ragwire.providers.onnx"] == {"ragwire.providers._config", "ragwire.providers._runtime"}
