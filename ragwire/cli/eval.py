"""``ragwire eval``: score retrieval (and, with ``--answers``, answers) against a golden set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..errors import EvalError
from .app import open_rag
from .errors import EXIT_MISMATCH, fail, handle_errors
from .options import config_option, json_option, search_type_option
from .output import echo_json


@click.command("eval")
@click.argument("golden", type=click.Path(dir_okay=False, path_type=Path))
@config_option
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None,
              help="Chunks to retrieve and score at (default: retriever.top_k).")
@click.option("--compare-rerank", is_flag=True, help="Run twice, without and with the configured reranker, and compare.")
@click.option("--answers", is_flag=True, help="Also score query(): refusals, citations, confidence.")
@search_type_option
@json_option("Print the full result as JSON.")
# scores of all zeros would read as a real (bad) run; a golden set that does not fit is the user's to fix
@handle_errors(codes={EvalError: EXIT_MISMATCH})
def eval_command(golden: Path, config: str, top_k: int | None, compare_rerank: bool, answers: bool,
                 search_type: str | None, as_json: bool) -> None:
    """Score retrieval against the golden set GOLDEN.  Exits 1 when the run fails and 2 when the golden
    set does not fit the collection (nothing expected is stored), never for low scores."""
    from ..eval import GoldenSet, evaluate, sweep

    golden_set = GoldenSet.from_file(golden)  # before loading the model: a typo in it should fail at once
    rag = open_rag(config)
    k = top_k or rag.config.retriever.top_k
    options: dict[str, Any] = {"search_type": search_type} if search_type else {}
    if compare_rerank:
        rerank = rag.config.retriever.rerank
        if rerank is None or not rerank.enabled:
            fail(f"--compare-rerank needs a reranker: add a retriever.rerank block to {config} (see docs/reranking.md)")
        result: Any = sweep(rag, golden_set, {"no rerank": {**options, "rerank": False},
                                              "reranked": {**options, "rerank": True}}, top_k=k, answers=answers)
    else:
        result = evaluate(rag, golden_set, top_k=k, label=str(golden), answers=answers, **options)
    if as_json:
        echo_json(result.to_dict(), default=str)
    else:
        click.echo(result.to_table())
    runs = list(result.results.values()) if compare_rerank else [result]
    broken = [r for r in runs if answers and r.per_query and len(r.answer_errors) == len(r.per_query)]
    if broken:
        first = broken[0].answer_errors[0].answer
        fail(f"--answers: no answer could be produced, all {len(broken[0].per_query)} query() calls failed "
             f"(first: {first.error if first else 'unknown'})")
