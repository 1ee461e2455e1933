"""How results are printed: JSON for scripts, what LLM calls cost, and the readable location and score of a chunk."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import click


def echo_json(data: object, *, default: Callable[[Any], object] | None = None) -> None:
    """Print ``data`` as indented JSON on stdout; ``default`` turns what JSON cannot hold into what it can
    (as in :func:`json.dumps`)."""
    click.echo(json.dumps(data, indent=2, default=default))


def extraction_line(usage: Mapping[str, Any] | None) -> str | None:
    """``metadata extraction: 3 LLM calls, 120 tokens (90 prompt, 30 completion), cost 0.000032``
    from a stats dict's ``metadata_usage``; None when no extraction call was made."""
    if not usage or not usage.get("llm_calls"):
        return None
    calls = usage["llm_calls"]
    if usage.get("total_tokens") is None:
        tokens = "tokens not reported"
    else:
        tokens = (f"{usage['total_tokens']} tokens ({usage.get('prompt_tokens') or 0} prompt, "
                  f"{usage.get('completion_tokens') or 0} completion)")
    cost = "" if usage.get("cost") is None else f", cost {usage['cost']:.6f}"
    return f"metadata extraction: {calls} LLM call{'s' if calls != 1 else ''}, {tokens}{cost}"


def pages(meta: dict[str, Any]) -> str:
    """``page iv`` (the printed label when the document has one) or ``pages 3–4``."""
    from ..retrieval.hit import page_text  # the retrieval package loads only when results print

    return page_text(meta["page_number"], meta.get("page_end"), meta.get("page_label"))


def score_text(meta: dict[str, Any]) -> str:
    """A score a person can read (:meth:`ragwire.retrieval.Hit.score_label`)."""
    from ..retrieval.hit import Hit

    return Hit.from_metadata(meta).score_label()


def location(meta: dict[str, Any]) -> str:
    """Where a chunk is (:meth:`ragwire.retrieval.Hit.location`): ``file › heading path, page n``."""
    from ..retrieval.hit import Hit

    return Hit.from_metadata(meta).location()
