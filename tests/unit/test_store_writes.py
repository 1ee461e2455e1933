"""Only ragwire/store/ writes points or payloads: everything else writes through
``Collection.commit`` (a second, unprotected commit path was a bug, issue 36)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ragwire"
STORE = ROOT / "store"

# Engine and qdrant-client calls that write points or payloads, and the collection's
# low-level write that a commit wraps (pending chunks never made visible, or made
# visible without a commit note and the writer lease).
WRITES = {"upsert", "upsert_points", "set_payload", "overwrite_payload", "delete_payload", "clear_payload",
          "delete_points", "batch_update_points", "update_vectors", "write_pending", "_write_pending"}
# ``delete`` is a common name (a web route, a source): a write only on an engine or a client.
WRITERS = ("engine", "client")


def _writes(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        # A reference counts as a call: ``retried(collection.write_pending, ...)`` writes too.
        if not isinstance(node, ast.Attribute):
            continue
        name, receiver = node.attr, ast.unparse(node.value)
        if name in WRITES or (name == "delete" and any(w in receiver for w in WRITERS)):
            found.append(f"{where}:{node.lineno}: {receiver}.{name}")
    return found


def test_no_module_outside_the_store_writes_a_point_or_a_payload():
    outside = [p for p in sorted(ROOT.rglob("*.py")) if STORE not in p.parents]
    assert outside, "no modules found"
    wrong = [line for path in outside
             for line in _writes(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT.parent)))]
    assert not wrong, "write through Collection.commit instead:\n" + "\n".join(wrong)


def test_the_check_sees_engine_writes_and_not_other_deletes():
    source = ("def f(c, app, service):\n"
              "    c.engine.set_payload(None, {})\n    c._engine.delete(None)\n    c.write_pending([], 'r')\n"
              "    app.delete('/api/documents')\n    service.delete('a.md')\n    retry(c.upsert, [])\n")
    assert [line.split(": ")[1] for line in _writes(source, "m.py")] == [
        "c.engine.set_payload", "c._engine.delete", "c.write_pending", "c.upsert"]
