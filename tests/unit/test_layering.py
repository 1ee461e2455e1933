"""The folder tree is the pipeline: later floors import earlier ones, never the reverse, and no
module imports itself back through others (imports inside functions count too)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ragwire"

# Floor of each top-level module or package; an import may only go to a lower floor.
FLOORS = {
    "errors": 0, "fields": 0, "logs": 0, "hashing": 0, "telemetry": 0, "lazy": 0, "pacing": 0,
    "loaders": 1, "chunk": 1,
    "config": 2, "stages": 2,
    "splitting": 3, "providers": 3, "server": 3,
    "store": 4, "rerank": 4,
    "metadata": 5, "access": 5,
    "ingest": 6, "retrieval": 6,
    "sync": 7, "answer": 7, "eval": 7,
    "components": 8,
    "runs": 9,
    "pipeline": 10,
    "__init__": 11, "cli": 11, "mcp": 11, "web": 11,
}
# Same-floor imports that are part of the design: cli and mcp use the public API (`ragwire`).
ALLOWED = {("cli", "mcp"), ("cli", "__init__"), ("mcp", "__init__"), ("cli", "web"), ("web", "__init__")}  # the public API is theirs to use


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every ragwire module ``path`` imports, resolved to a module name."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {n for n in names if n == "ragwire" or n.startswith("ragwire.")}
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in ROOT.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        # "from .x import y" names y too; keep only what is a module
        out[name] = {t for t in imports(path) if t in modules and t != name}
    return out


def floor(module: str) -> tuple[str, int]:
    top = module.split(".")[1] if "." in module else "__init__"
    return top, FLOORS[top]


def test_every_top_level_module_has_a_floor():
    tops = {p.stem if p.is_file() else p.name for p in ROOT.iterdir()
            if p.suffix == ".py" or (p.is_dir() and any(p.glob("*.py")))}  # templates/ holds no code
    assert tops <= set(FLOORS), f"give these a floor: {sorted(tops - set(FLOORS))}"


def test_no_import_reaches_up_a_floor():
    wrong = []
    for src, targets in graph().items():
        (top, level) = floor(src)
        for dst in targets:
            (other, their) = floor(dst)
            if other != top and their >= level and (top, other) not in ALLOWED:
                wrong.append(f"{src} -> {dst}")
    assert not wrong, "imports up or across a floor:\n" + "\n".join(sorted(wrong))


def test_no_import_circle_between_modules():
    edges = graph()
    # A package's __init__ re-exports its modules; it is not part of a circle of design.
    edges = {m: {t for t in ts if not (edges.get(t) is not None and m.startswith(t + "."))}
             for m, ts in edges.items()}
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_servers_use_the_public_api_not_the_stages_internals():
    # the web page, HTTP API and MCP server reach the collection through RAGWire only
    internals = ("ragwire.store", "ragwire.ingest", "ragwire.sync", "ragwire.components", "ragwire.pipeline",
                 "ragwire.config")
    wrong = sorted(f"{src} -> {dst}" for src, targets in graph().items()
                   if src.startswith(("ragwire.web", "ragwire.mcp", "ragwire.server"))
                   for dst in targets if dst.startswith(internals))
    assert not wrong, "servers importing stage internals:\n" + "\n".join(wrong)


# Modules allowed past the size limit, each with its reason (data tables only).
LONG_ALLOWED: dict[str, str] = {}


def test_no_module_is_over_400_lines():
    # When a module grows past this it is two things (STYLE.md); split it by role.
    long = {module_name(p): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert set(long) <= set(LONG_ALLOWED), f"over 400 lines: {long}"
