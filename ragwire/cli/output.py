"""How results are printed: JSON for scripts, and the readable location and score of a retrieved chunk."""

from __future__ import annotations

import json
from typing import Any

import click


def echo_json(data: Any, **kwargs: Any) -> None:
    """Print ``data`` as indented JSON on stdout (``kwargs`` go to :func:`json.dumps`)."""
    click.echo(json.dumps(data, indent=2, **kwargs))


def pages(meta: dict[str, Any]) -> str:
    """``page iv`` (the printed label when the document has one) or ``pages 3–4``."""
    first, last = meta["page_number"], meta.get("page_end")
    if last and last != first:
        return f"pages {first}–{last}"
    return f"page {meta.get('page_label') or first}"


def score_text(meta: dict[str, Any]) -> str:
    """A score a person can read: fused scores as a share of the best possible one."""
    score = float(meta.get("score", 0.0))
    kind = meta.get("score_type")
    if "rerank_score" in meta:
        return f"rerank={float(meta['rerank_score']):.3f}"
    if kind in ("rrf", "dbsf") and meta.get("score_max"):
        # an RRF 0.03 can be a perfect hit; the share says how close to "first in both lists"
        return f"fused {score / float(meta['score_max']):.0%} ({kind}={score:.4f})"
    if kind:
        return f"{kind}={score:.3f}"
    return f"score={score:.4f}"


def location(meta: dict[str, Any]) -> str:
    """Where a chunk is: ``file › heading path (page n)``."""
    where = meta.get("file_name", "?")
    if meta.get("heading_path"):
        where += f" › {meta['heading_path']}"
    if meta.get("page_number"):
        where += f" ({pages(meta)})"
    return where
