"""``ragwire query`` (a cited answer) and ``ragwire retrieve`` (the ranked chunks)."""

from __future__ import annotations

import json
import sys

import click

from ..config.answer import MAX_ITERATIONS_RANGE
from .app import open_rag
from .errors import EXIT_REFUSED, handle_errors
from .options import (
    config_option,
    filter_option,
    json_option,
    parse_filters,
    require_text,
    search_type_option,
)
from .output import echo_json, location, score_text


@click.command()
@click.argument("question")
@config_option
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None, help="Chunks to ground the answer in.")
@filter_option
@json_option("Print the answer as JSON.")
@click.option("--stream", is_flag=True, help="Print the answer as it is generated.")
@click.option("--refine/--no-refine", default=None,
              help="Search each part of a multi-part question, judge what is covered, re-query what is missing "
                   "(default: generation.refine).")
@click.option("--max-iterations", type=click.IntRange(*MAX_ITERATIONS_RANGE), default=None,
              help="The most retrieval rounds when refining (default: generation.max_iterations).")
@click.option("--trace", "show_trace", is_flag=True,
              help="Print how the answer came about: each step, the trace id, LLM calls and tokens.")
@handle_errors
def query(question: str, config: str, top_k: int | None, filters: tuple[str, ...], as_json: bool,
          stream: bool, refine: bool | None, max_iterations: int | None, show_trace: bool) -> None:
    """Answer QUESTION from the collection with numbered sources; exits 3 when the documents do not answer it."""
    require_text(question, "QUESTION", "the question")
    parsed = parse_filters(filters)
    rag = open_rag(config)
    if stream and not as_json:
        # The answerer decides whether to refine; a refined answer arrives as one piece.
        answer = None
        for piece in rag.query_stream(question, top_k=top_k, filters=parsed, refine=refine,
                                      max_iterations=max_iterations):
            if isinstance(piece, str):
                click.echo(piece, nl=False)
                sys.stdout.flush()
            else:
                answer = piece
        click.echo()
        if answer is not None and answer.citations:
            click.echo("\n" + answer.source_list())
    else:
        answer = rag.query(question, top_k=top_k, filters=parsed, refine=refine, max_iterations=max_iterations)
        if as_json:
            echo_json(answer.to_dict())
        else:
            click.echo(answer.formatted())
    if show_trace and answer is not None and not as_json:
        click.echo("\nTrace:\n" + answer.trace_lines())
    if answer is not None and answer.refused:
        sys.exit(EXIT_REFUSED)


@click.command()
@click.argument("query")
@config_option
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None, help="Number of results.")
@filter_option
@search_type_option
@click.option("--auto-filter", is_flag=True, help="Let the LLM read filters from QUERY (needs an llm section).")
@json_option("Print results as JSON.")
@handle_errors
def retrieve(query: str, config: str, top_k: int | None, filters: tuple[str, ...],
             search_type: str | None, auto_filter: bool, as_json: bool) -> None:
    """Print the chunks that best match QUERY, ranked."""
    require_text(query, "QUERY", "the words to search for")
    parsed = parse_filters(filters)  # before loading anything: a usage error should be instant
    rag = open_rag(config)
    if auto_filter and parsed is None:
        from ..errors import ProviderError

        try:
            parsed = rag.extract_filters(query) or {}
        except ProviderError as exc:
            # as retriever.auto_filter does: a filter is a refinement, so an LLM failure searches unfiltered
            click.echo(f"warning: auto-filter: no filters extracted, searching unfiltered: {exc}", err=True)
            parsed = {}
        else:
            click.echo(f"filters: {json.dumps(parsed) if parsed else 'none found'}", err=True)
    docs = rag.retrieve(query, top_k=top_k, filters=parsed, search_type=search_type)
    if as_json:
        echo_json([{"text": d.page_content, "metadata": d.metadata} for d in docs], default=str)
        return
    if not docs:
        # blaming an empty collection would send the user the wrong way when the filters excluded everything
        if parsed and rag.get_stats()["total_documents"]:
            click.echo("no results: no chunk matched the filters")
        else:
            click.echo("no results (is the collection empty? run `ragwire ingest` first)")
        return
    for rank, doc in enumerate(docs, 1):
        click.echo(f"{rank}. {location(doc.metadata)}  {score_text(doc.metadata)}")
        snippet = " ".join(doc.page_content.split())
        click.echo(f"   {snippet[:240]}{'…' if len(snippet) > 240 else ''}")
