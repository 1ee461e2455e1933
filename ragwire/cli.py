"""The ``ragwire`` command.  Errors become one-line messages and exit codes here, in one place."""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import sys
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .errors import ConfigError, RagwireError

_CONFIG_HELP = "Path to config.yaml (default: ./config.yaml)."


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def handle_errors(fn: Callable) -> Callable:
    """Turn library failures into `error: …` on stderr and exit 1; --debug shows the traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        debug = bool(ctx.find_root().params.get("debug"))
        try:
            return fn(*args, **kwargs)
        except (RagwireError, FileNotFoundError, ValueError, ImportError) as exc:
            if debug:
                raise
            if isinstance(exc, ConfigError) and len(exc.problems) > 1:
                click.echo(f"error: {len(exc.problems)} problems in {exc.source}:", err=True)
                for problem in exc.problems:
                    click.echo(f"  {exc.source}: {problem}", err=True)
                sys.exit(1)
            _fail(" ".join(str(exc).split("\n")))
        except KeyboardInterrupt:
            _fail("interrupted; unfinished files are written as pending and redone by the next run")

    return wrapper


def _open(config: str):
    from .logs import quiet_reported_lines, setup_colored_logging, setup_logging
    from .pipeline import RAGWire

    rag = RAGWire(config)
    # pypdf warns about damaged files through logging; ragwire reports them itself, once.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    lg = rag.config.logging
    if lg.colored and sys.stderr.isatty():
        setup_colored_logging(lg.level, str(lg.log_file) if lg.log_file else None)
    else:
        setup_logging(lg.level, str(lg.log_file) if lg.log_file else None, lg.console_output)
    # Commands print their result's warnings, failures and summary themselves: once, not twice.
    quiet_reported_lines()
    return rag


_FILTER = re.compile(r"^(?P<key>[^<>=]*)(?P<op>>=|<=|>|<|=)(?P<value>.*)$", re.DOTALL)
_RANGE_OPS = {">=": "gte", "<=": "lte", ">": "gt", "<": "lt"}
_FILTER_FORMS = "write key=value, key>=N, key<=N, key>N or key<N"


def _bad_filter(item: str, problem: str) -> click.BadParameter:
    return click.BadParameter(f"{item!r}: {problem}", param_hint="--filter")


def _parse_filters(items: tuple[str, ...]) -> dict[str, Any] | None:
    """``key=value`` (repeat a key for any-of); ``key>=N``, ``key<=N``, ``key>N``, ``key<N`` for ranges.

    Equality values stay text: the search converts each to the type its field is stored
    as, so ``0012`` can match a string and ``2024`` an integer.

    Raises:
        click.BadParameter: an item with no operator, an empty key or value, a bound that
            is not a number, a bound given twice, or equality and a range on one key.
    """
    filters: dict[str, Any] = {}
    for item in items:
        match = _FILTER.match(item)
        if match is None:
            raise _bad_filter(item, _FILTER_FORMS)
        key, op, value = match["key"].strip(), match["op"], match["value"].strip()
        if not key:
            raise _bad_filter(item, f"the key is empty ({_FILTER_FORMS})")
        if not value:
            raise _bad_filter(item, f"the value is empty ({_FILTER_FORMS})")
        previous = filters.get(key)
        if previous is not None and (op == "=") == isinstance(previous, dict):
            raise _bad_filter(item, f"{key} has both an equality and a range filter (use one or the other)")
        if op == "=":
            # a repeated key collects its values into an any-of list
            earlier = [] if previous is None else [previous] if isinstance(previous, str) else previous
            filters[key] = [*earlier, value] if earlier else value
            continue
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise _bad_filter(item, f"{value!r} is not a number (a range bound must be a number)")
        bounds = filters.setdefault(key, {})
        if _RANGE_OPS[op] in bounds:
            raise _bad_filter(item, f"{key}{op} is given twice (keep one)")
        bounds[_RANGE_OPS[op]] = int(number) if re.fullmatch(r"[+-]?\d+", value) else number
    return filters or None


def _require_text(value: str, name: str, what: str) -> None:
    """An empty or blank QUESTION / QUERY is a usage error (exit 2), not a search for nothing."""
    if not value.strip():
        raise click.BadParameter(f"is empty: write {what} in quotes", param_hint=name)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragwire")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
def main(debug: bool) -> None:
    """ragwire: documents in, a searchable Qdrant knowledge base out; one config.yaml wires the pipeline."""


def _print_ingest(label: str, stats: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(stats, indent=2))
        return
    click.echo(
        f"{label}: {stats['total']} files, {stats['processed']} processed, {stats['skipped']} skipped, "
        f"{stats['failed']} failed; {stats['chunks_created']} chunks written "
        f"({stats['embedded_chunks']} embedded, {stats['reused_chunks']} reused)"
        + (f", {stats['replaced']} replaced" if stats["replaced"] else "")
    )
    for error in stats["errors"]:
        click.echo(f"  failed: {error['error']}", err=True)
    for left in stats.get("not_walked", []):
        click.echo(f"  not ingested: {left['file']} ({left['reason']})", err=True)


def _run_ingest(rag: Any, paths: tuple[Path, ...], recursive: bool, force: bool, as_json: bool) -> None:
    """Ingest each path (file or folder); a run-level failure still prints what was done."""
    from .errors import IngestAborted

    total = failed = 0
    for path in paths:
        try:
            if path.is_dir():
                stats = rag.ingest_directory(path, recursive=recursive, force=force)
            elif force:
                stats = rag.reingest_documents([str(path)])
            else:
                stats = rag.ingest_documents([str(path)])
        except IngestAborted as exc:
            # The stats so far go out first (stdout), so a scheduled job's log keeps them.
            _print_ingest(str(path), exc.stats, as_json)
            raise
        _print_ingest(str(path), stats, as_json)
        total += stats["total"]
        failed += stats["failed"]
    if total and failed == total:
        sys.exit(1)


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--recursive", "-r", is_flag=True, help="Descend into subfolders.")
@click.option("--force", is_flag=True, help="Re-process every file, even unchanged ones (vectors of unchanged chunk texts are reused).")
@click.option("--json", "as_json", is_flag=True, help="Print the stats as JSON.")
@handle_errors
def ingest(path: Path, config: str, recursive: bool, force: bool, as_json: bool) -> None:
    """Ingest a file or a folder.  Unchanged files are skipped; exits 1 when every file failed."""
    _run_ingest(_open(config), (path,), recursive, force, as_json)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--recursive", "-r", is_flag=True, help="Descend into subfolders.")
@click.option("--json", "as_json", is_flag=True, help="Print the stats as JSON.")
@handle_errors
def reingest(paths: tuple[Path, ...], config: str, recursive: bool, as_json: bool) -> None:
    """Rewrite PATH… (files or folders) even if unchanged; old chunks stay visible until the new ones are in."""
    _run_ingest(_open(config), paths, recursive, True, as_json)


# Exit status of `ragwire query` when the documents do not answer the question.
EXIT_REFUSED = 3


@main.command()
@click.argument("question")
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None, help="Chunks to ground the answer in.")
@click.option("--filter", "-f", "filters", multiple=True,
              help="key=value (repeat a key for any of), key>=N, key<=N, key>N, key<N; repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@click.option("--stream", is_flag=True, help="Print the answer as it is generated.")
@handle_errors
def query(question: str, config: str, top_k: int | None, filters: tuple[str, ...], as_json: bool,
          stream: bool) -> None:
    """Answer QUESTION from the collection with numbered sources; exits 3 when the documents do not answer it."""
    _require_text(question, "QUESTION", "the question")
    parsed = _parse_filters(filters)
    rag = _open(config)
    if stream and not as_json:
        answer = None
        for piece in rag.query_stream(question, top_k=top_k, filters=parsed):
            if isinstance(piece, str):
                click.echo(piece, nl=False)
                sys.stdout.flush()
            else:
                answer = piece
        click.echo()
        if answer is not None and answer.citations:
            click.echo("\n" + answer.source_list())
    else:
        answer = rag.query(question, top_k=top_k, filters=parsed)
        click.echo(json.dumps(answer.to_dict(), indent=2) if as_json else answer.formatted())
    if answer is not None and answer.refused:
        sys.exit(EXIT_REFUSED)


def _pages(meta: dict[str, Any]) -> str:
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


@main.command()
@click.argument("query")
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None, help="Number of results.")
@click.option("--filter", "-f", "filters", multiple=True,
              help="key=value (repeat a key for any of), key>=N, key<=N, key>N, key<N; repeatable.")
@click.option("--search-type", type=click.Choice(["similarity", "mmr", "hybrid", "keyword"]), default=None,
              help="Override retriever.search_type.")
@click.option("--auto-filter", is_flag=True, help="Let the LLM read filters from QUERY (needs an llm section).")
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
@handle_errors
def retrieve(query: str, config: str, top_k: int | None, filters: tuple[str, ...],
             search_type: str | None, auto_filter: bool, as_json: bool) -> None:
    """Print the chunks that best match QUERY, ranked."""
    _require_text(query, "QUERY", "the words to search for")
    parsed = _parse_filters(filters)  # before loading anything: a usage error should be instant
    rag = _open(config)
    if auto_filter and parsed is None:
        from .errors import ProviderError

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
        click.echo(json.dumps([{"text": d.page_content, "metadata": d.metadata} for d in docs], indent=2, default=str))
        return
    if not docs:
        # blaming an empty collection would send the user the wrong way when the filters excluded everything
        if parsed and rag.get_stats()["total_documents"]:
            click.echo("no results: no chunk matched the filters")
        else:
            click.echo("no results (is the collection empty? run `ragwire ingest` first)")
        return
    for rank, doc in enumerate(docs, 1):
        meta = doc.metadata
        where = meta.get("file_name", "?")
        if meta.get("heading_path"):
            where += f" › {meta['heading_path']}"
        if meta.get("page_number"):
            where += f" ({_pages(meta)})"
        click.echo(f"{rank}. {where}  {score_text(meta)}")
        snippet = " ".join(doc.page_content.split())
        click.echo(f"   {snippet[:240]}{'…' if len(snippet) > 240 else ''}")


@main.command()
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def stats(config: str, as_json: bool) -> None:
    """Show the collection's size and settings."""
    info = _open(config).get_stats()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        click.echo(f"{key}: {value}")


@main.command()
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--values", "show_values", is_flag=True, help="Also list each field's most frequent values.")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True, help="Values per field.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@handle_errors
def fields(config: str, show_values: bool, limit: int, as_json: bool) -> None:
    """List the metadata fields you can filter on."""
    rag = _open(config)
    names = rag.filter_fields
    values = rag.get_field_values(names, limit=limit) if (show_values or as_json) and names else {}
    if as_json:
        click.echo(json.dumps({"fields": names, "values": values}, indent=2, default=str))
        return
    if not names:
        click.echo("no filterable fields (is the collection empty? run `ragwire ingest` first)")
        return
    for name in names:
        shown = ", ".join(str(v) for v in values.get(name, [])) if show_values else ""
        click.echo(f"{name}: {shown}" if show_values else name)


@main.command()
@click.argument("path")
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@handle_errors
def delete(path: str, config: str) -> None:
    """Remove every chunk of PATH from the collection (the file may already be gone)."""
    removed = _open(config).delete_document(path)
    click.echo(f"{path}: {removed} chunks removed")


# Exit statuses of `ragwire sync` besides 0 (success) and 1 (the run failed):
EXIT_PARTIAL = 4  # some files failed, or a source could not be listed: the collection may lag its sources
EXIT_LOCKED = 5  # another run held the store or its writer lease beyond --wait: nothing was done


@main.command()
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--dry-run", is_flag=True, help="Write, download and delete nothing; report what a run would do.")
@click.option("--no-delete", is_flag=True, help="Keep documents the sources no longer list.")
@click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait for another run holding the store (or the collection's writer lease), then exit 5.")
@click.option("--json", "as_json", is_flag=True, help="Print the full SyncStats as JSON.")
@handle_errors
def sync(config: str, dry_run: bool, no_delete: bool, wait: float, as_json: bool) -> None:
    """Reconcile the collection with the config's sources.  Exits 4 on partial failure, 5 when the store is locked."""
    from .errors import StoreLockedError

    rag = _open(config)
    engine = rag.collection.engine
    if hasattr(engine, "lock_wait_s"):
        engine.lock_wait_s = wait
    # A sync on a server engine waits as long for another run's writer lease.
    rag.collection.write_wait_s = wait
    try:
        stats = rag.sync(delete_missing=not no_delete, dry_run=dry_run)
    except StoreLockedError as exc:
        click.echo(f"error: {' '.join(str(exc).split())}", err=True)
        sys.exit(EXIT_LOCKED)
    if as_json:
        click.echo(json.dumps(stats.to_dict(), indent=2))
    for warning in stats.warnings:
        click.echo(f"  warning: {warning}", err=True)
    for error in stats.errors:
        click.echo(f"  failed: {error['file']}: {error['error']}", err=True)
    # The last line of stderr is the one-line summary a scheduler's log keeps.
    click.echo(stats.summary(), err=True)
    if stats.partial:
        sys.exit(EXIT_PARTIAL)


@main.command("eval")
@click.argument("golden", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--top-k", "-k", type=click.IntRange(min=1), default=None,
              help="Chunks to retrieve and score at (default: retriever.top_k).")
@click.option("--compare-rerank", is_flag=True, help="Run twice, without and with the configured reranker, and compare.")
@click.option("--answers", is_flag=True, help="Also score query(): refusals, citations, confidence.")
@click.option("--search-type", type=click.Choice(["similarity", "mmr", "hybrid", "keyword"]), default=None,
              help="Override retriever.search_type.")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@handle_errors
def eval_command(golden: Path, config: str, top_k: int | None, compare_rerank: bool, answers: bool,
                 search_type: str | None, as_json: bool) -> None:
    """Score retrieval against the golden set GOLDEN.  Exits 1 when the run fails and 2 when the golden
    set does not fit the collection (nothing expected is stored), never for low scores."""
    from .errors import EvalError
    from .eval import GoldenSet, evaluate, sweep

    golden_set = GoldenSet.from_file(golden)  # before loading the model: a typo in it should fail at once
    rag = _open(config)
    k = top_k or rag.config.retriever.top_k
    options: dict[str, Any] = {"search_type": search_type} if search_type else {}
    try:
        if compare_rerank:
            rerank = rag.config.retriever.rerank
            if rerank is None or not rerank.enabled:
                _fail(f"--compare-rerank needs a reranker: add a retriever.rerank block to {config} (see docs/reranking.md)")
            result: Any = sweep(rag, golden_set, {"no rerank": {**options, "rerank": False},
                                                  "reranked": {**options, "rerank": True}}, top_k=k, answers=answers)
        else:
            result = evaluate(rag, golden_set, top_k=k, label=str(golden), answers=answers, **options)
    except EvalError as exc:
        # scores of all zeros would read as a real (bad) run; a mismatched set is the user's to fix
        click.echo(f"error: {' '.join(str(exc).split())}", err=True)
        sys.exit(2)
    click.echo(json.dumps(result.to_dict(), indent=2, default=str) if as_json else result.to_table())
    runs = list(result.results.values()) if compare_rerank else [result]
    broken = [r for r in runs if answers and r.per_query and len(r.answer_errors) == len(r.per_query)]
    if broken:
        first = broken[0].answer_errors[0].answer
        _fail(f"--answers: no answer could be produced, all {len(broken[0].per_query)} query() calls failed "
              f"(first: {first.error if first else 'unknown'})")


@main.group()
def model() -> None:
    """Prepare local embedding models."""


@model.command()
@click.option("--model", "name", default="sentence-transformers/all-MiniLM-L6-v2", show_default=True,
              help="A local sentence-transformers folder, or the packaged model's name.")
@click.option("--force", is_flag=True, help="Rebuild even when a valid export is cached.")
@handle_errors
def prepare(name: str, force: bool) -> None:
    """Export NAME to ONNX for `provider: onnx`, verified against sentence-transformers (cached)."""
    from .providers import prepare_onnx_model
    from .providers.onnx_export import read_manifest

    path = prepare_onnx_model(name, force=force)
    cosine = read_manifest(path).get("min_cosine")
    check = f" (min cosine vs sentence-transformers {cosine:.6f})" if isinstance(cosine, float) else ""
    click.echo(f"{name}: ONNX export ready at {path}{check}")


@main.group()
def mcp() -> None:
    """Serve the collection to AI agents over MCP (needs: pip install "ragwire[mcp]")."""


@mcp.command("serve")
@click.option("--config", "-c", default="config.yaml", show_default=True, help=_CONFIG_HELP)
@click.option("--name", default="ragwire", show_default=True, help="Server name the MCP client shows.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: the client starts this command; http: streamable HTTP at http://HOST:PORT/mcp.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind for http (default: this machine only).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port for http.")
@click.option("--token", default=None,
              help="http: require Authorization: Bearer TOKEN on every request (default: $RAGWIRE_MCP_TOKEN).")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME[:PORT]",
              help="http: another host name clients reach the server by (Host/Origin allow-list); repeatable.")
@click.option("--allow-unauthenticated", is_flag=True,
              help="http: serve a --host other than loopback without a token (only behind something that authenticates).")
@handle_errors
def mcp_serve(config: str, name: str, transport: str, host: str, port: int, token: str | None,
              allowed_hosts: tuple[str, ...], allow_unauthenticated: bool) -> None:
    """Run the MCP server with the tools search_documents, answer_question, get_filter_context, collection_stats.

    Over http, a --host other than loopback needs a token (docs/security.md)."""
    from .mcp import serve

    if transport == "stdio":
        # an exported RAGWIRE_MCP_TOKEN does not concern a stdio server; a flag for http does
        given = {"--token": token is not None, "--allowed-host": bool(allowed_hosts),
                 "--allow-unauthenticated": allow_unauthenticated}
        if any(given.values()):
            raise click.UsageError(f"{next(f for f, on in given.items() if on)} concerns --transport http only")
    try:
        import mcp.server.mcpserver  # noqa: F401 - checked before the collection is opened
    except ImportError as exc:
        raise ImportError('ragwire mcp serve needs the mcp package. Install it with: pip install "ragwire[mcp]"') from exc
    # The collection opens (and the model loads) only after the bind and token checks pass.
    serve(config, name=name, transport=transport, host=host, port=port, token=token,
          allowed_hosts=allowed_hosts, allow_unauthenticated=allow_unauthenticated, rag=lambda: _open(config))


if __name__ == "__main__":  # pragma: no cover
    main()
