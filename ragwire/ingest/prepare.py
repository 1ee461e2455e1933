"""Prepare one file for writing: load → split → chunk metadata.  Runs in worker threads; touches no store."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..chunk import Chunk
from ..config import LoaderConfig, SplitterConfig
from ..errors import IngestError, LoaderError, RagwireError, one_line
from ..hashing import FileVersion, file_version, sha256_chunk, sha256_text
from ..loaders import Loaded, raised_outside_ragwire
from ..loaders.result import LoadFailed
from ..loaders.scan import doubtful_pages, ocr_chunk_fields, ocr_shaped
from ..providers.usage import Usage

if TYPE_CHECKING:
    from ..metadata.service import Hook
    from ..stages import Loader


# Why a file written to while it is read is not stored this run.
CHANGING = "changed while it was being read; not stored, the next run reads it again"


@dataclass
class Prepared:
    """A file ready to embed and write.  ``error`` is set instead when it failed (see :meth:`fail`)."""

    index: int
    path: Path
    source: str
    file_hash: str
    # The file's version when it was hashed: the content loaded must be of that version.
    file_version: FileVersion | None = None
    # The splitter's chunks with the file's metadata and ragwire's bookkeeping added.
    chunks: list[Chunk] = field(default_factory=list)
    error: str | None = None
    # The class name of the exception that failed the file, and whether a later run may succeed.
    error_type: str = ""
    retryable: bool = False
    metadata_failed: bool = False
    # What the file's LLM metadata extraction used (no calls when none ran).
    metadata_usage: Usage = field(default_factory=Usage)
    # A page needed OCR (or the file is an image): the OCR settings shape this document.
    ocr_shaped: bool = False
    # OCR'd pages whose text the engine was unsure of, after every retry: (page, confidence).
    ocr_doubtful: list[tuple[int, float]] = field(default_factory=list)
    replacing: bool = False
    # A version with this same file hash is stored (a forced or settings-driven rewrite):
    # the new points get run-specific ids so they never overwrite the visible ones.
    same_content_stored: bool = False
    reuse: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    # Set by the caller (sync records the configured source a file came from).
    extra_metadata: dict[str, Any] = field(default_factory=dict)

    def fail(self, message: str, exc: BaseException | None = None) -> None:
        """Mark the file failed with a one-line ``message``; ``exc`` gives its error type and ``retryable``."""
        self.error = message
        if exc is not None:
            self.error_type = type(exc).__name__
            self.retryable = isinstance(exc, RagwireError) and exc.retryable


def make_loader(loader: LoaderConfig, strategy: str) -> Loader:
    """The loader one run uses for every file.

    The page strategy chunks PageLoader's pages; the others chunk MarkItDown's text and
    use the PDF pages / PPTX slides that PageMapLoader reads too only to give each chunk
    its page range.
    """
    from ..loaders.page_loader import PageLoader, PageMapLoader

    cls = PageLoader if strategy == "page" else PageMapLoader
    return cls(
        max_file_size_mb=loader.max_file_size_mb,
        max_uncompressed_mb=loader.max_uncompressed_mb,
        max_compression_ratio=loader.max_compression_ratio,
        timeout_s=loader.timeout_s,
        ocr=loader.ocr_settings(),
    )


def load_text(loader: Loader, path: Path) -> Loaded:
    """Load a file: its text, pages (or ``None``) and file type.

    Raises:
        LoaderError: the loader could not produce text (the message is its one-line reason),
            or the file was removed since the folder was listed.
    """
    try:
        outcome = loader.load_outcome(path)
    except FileNotFoundError:  # deleted since the folder was listed
        raise LoaderError(f"{path}: file not found — it was removed during the run") from None
    if isinstance(outcome, LoadFailed):
        raise outcome.error
    return outcome


def prepare_file(
    item: Prepared,
    *,
    loader: Loader,
    splitter: SplitterConfig,
    dedup_chunks: bool,
    extract_metadata: Hook | None = None,
) -> Prepared:
    """Fill ``item.chunks`` with the file's chunks (:class:`~ragwire.chunk.Chunk`); on failure set ``item.error`` instead of raising."""
    from ..splitting import split_text

    try:
        loaded = load_text(loader, item.path)
        if item.file_version is not None and _version_now(item.path) != item.file_version:
            # Stored under the hash of another version, a half-read file would be skipped as
            # unchanged by every later run.
            raise IngestError(f"{item.path.name}: {CHANGING}")
        text, pages, file_type = loaded.text, loaded.pages, loaded.file_type
        item.ocr_shaped = ocr_shaped(pages, file_type)
        item.ocr_doubtful = doubtful_pages(pages)
        pieces = split_text(
            text,
            strategy=splitter.strategy,
            chunk_size=splitter.chunk_size,
            chunk_overlap=splitter.chunk_overlap,
            separators=splitter.separators,
            page_marker=splitter.page_marker,
            max_heading_level=splitter.max_heading_level,
            pages=pages,
            file_type=file_type,
        )
        if dedup_chunks:
            seen: set[str] = set()
            unique = []
            for piece in pieces:
                digest = sha256_text(piece.text)
                if digest not in seen:
                    seen.add(digest)
                    unique.append(piece)
            pieces = unique
        if not pieces:
            raise IngestError(f"{item.path.name}: no text to index after splitting")
        from ..metadata.properties import file_properties

        # What the file says about itself; an LLM field of the same name wins.
        extracted: dict[str, Any] = file_properties(item.path, text, file_type)
        status = "skipped"
        if extract_metadata is not None:
            found = extract_metadata(text)
            extracted.update(found.values)
            item.metadata_failed = not found.ok
            item.metadata_usage = found.usage
            status = "extracted" if found.ok else "failed"
        created_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        total = len(pieces)
        for i, piece in enumerate(pieces):
            chunk_id = f"{item.file_hash[:16]}_{i}"
            meta: dict[str, Any] = {
                **extracted,
                **piece.metadata,
                **ocr_chunk_fields(pages, piece.metadata),
                **item.extra_metadata,
                "source": item.source,
                "file_name": item.path.name,
                "file_type": file_type,
                "file_hash": item.file_hash,
                "chunk_id": chunk_id,
                "chunk_index": i,
                "total_chunks": total,
                "content_hash": sha256_text(piece.text),
                "chunk_hash": sha256_chunk(chunk_id, piece.text),
                "created_at": created_at,
            }
            meta["metadata_status"] = status
            item.chunks.append(Chunk.from_metadata(piece.text, meta))
    except (IngestError, LoaderError) as exc:
        item.fail(str(exc), exc)
    except Exception as exc:  # a converter bug must fail this file, not the batch
        if isinstance(exc, (TypeError, AttributeError, NameError)) and not raised_outside_ragwire(exc):
            raise
        item.fail(f"{item.path.name}: {type(exc).__name__}: {one_line(exc)}", exc)
    return item


def _version_now(path: Path) -> FileVersion | None:
    try:
        return file_version(path)
    except OSError:
        return None
