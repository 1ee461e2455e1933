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
