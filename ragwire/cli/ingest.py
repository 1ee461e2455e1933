"""``ragwire ingest``, ``reingest`` and ``delete``: files into the collection, and out of it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..server.handover import HandedOver, handover_if_owned
from .app import open_rag
from .errors import handle_errors
from .options import config_option, json_option
from .output import echo_json, extraction_line

if TYPE_CHECKING:
    from ..pipeline import RAGWire


def print_stats(label: str, stats: dict[str, Any], as_json: bool) -> None:
    """One summary line on stdout (or the stats as JSON), then each failure on stderr."""
    if as_json:
        echo_json(stats)
        return
    click.echo(
        f"{label}: {stats['total']} files, {stats['processed']} processed, {stats['skipped']} skipped, "
        f"{stats['failed']} failed; {stats['chunks_created']} chunks written "
        f"({stats['embedded_chunks']} embedded, {stats['reused_chunks']} reused)"
        + (f", {stats['replaced']} replaced" if stats["replaced"] else "")
    )
    extraction = extraction_line(stats.get("metadata_usage"))
    if extraction:
        click.echo(f"  {extraction}")
    for error in stats["errors"]:
        click.echo(f"  failed: {error['error']}", err=True)
    for page in stats.get("ocr_low_confidence", []):
        click.echo(f"  low OCR confidence: {page['file']} page {page['page']} ({page['ocr_confidence']:.2f})"
                   " — check its text, or rescan it", err=True)
    for left in stats.get("not_walked", []):
        click.echo(f"  not ingested: {left['file']} ({left['reason']})", err=True)


def run_ingest(rag: RAGWire | HandedOver, paths: tuple[Path, ...], recursive: bool, force: bool, as_json: bool,
               access: str | None = None) -> None:
    """Ingest each path (file or folder); a run-level failure still prints what was done."""
    from ..errors import IngestAborted

    total = failed = 0
    for path in paths:
        try:
            if path.is_dir():
                stats = rag.ingest_directory(path, recursive=recursive, force=force, access=access)
            elif force:
                stats = rag.reingest_documents([str(path)], access=access)
            else:
                stats = rag.ingest_documents([str(path)], access=access)
        except IngestAborted as exc:
            # The stats so far go out first (stdout), so a scheduled job's log keeps them.
            print_stats(str(path), exc.stats, as_json)
            raise
        print_stats(str(path), stats, as_json)
        total += stats["total"]
        failed += stats["failed"]
    if total and failed == total:
        sys.exit(1)


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@config_option
@click.option("--recursive", "-r", is_flag=True, help="Descend into subfolders.")
@click.option("--force", is_flag=True, help="Re-process every file, even unchanged ones (vectors of unchanged chunk texts are reused).")
@click.option("--access", metavar="LABELS", default=None,
              help="Who may read these files: labels such as hr,finance (docs/security.md); an unchanged file is "
                   "relabelled without re-embedding.  Default: stored files keep theirs, new ones get access.default.")
@json_option("Print the stats as JSON.")
@handle_errors
def ingest(path: Path, config: str, recursive: bool, force: bool, access: str | None, as_json: bool) -> None:
    """Ingest a file or a folder.  Unchanged files are skipped; exits 1 when every file failed."""
    run_ingest(handover_if_owned(open_rag(config)), (path,), recursive, force, as_json, access)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@config_option
@click.option("--recursive", "-r", is_flag=True, help="Descend into subfolders.")
@json_option("Print the stats as JSON.")
@handle_errors
def reingest(paths: tuple[Path, ...], config: str, recursive: bool, as_json: bool) -> None:
    """Rewrite PATH… (files or folders) even if unchanged; old chunks stay visible until the new ones are in."""
    run_ingest(handover_if_owned(open_rag(config)), paths, recursive, True, as_json)


@click.command()
@click.argument("path")
@config_option
@handle_errors
def delete(path: str, config: str) -> None:
    """Remove every chunk of PATH from the collection (the file may already be gone)."""
    removed = handover_if_owned(open_rag(config)).delete_document(path)
    click.echo(f"{path}: {removed} chunks removed")
