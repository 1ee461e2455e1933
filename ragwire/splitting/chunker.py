"""split_text: one entry point from text (or pages) to chunks, for every splitter strategy.

Each :class:`~ragwire.chunk.Chunk` carries where it lies (its ``location``), as far as its
strategy knows: ``heading_path`` for "markdown", ``page_number`` / ``page_total`` /
``page_label`` for "page", and, for the other strategies when the loader gave pages,
``page_number`` / ``page_end``.  Ingestion adds the bookkeeping and the file's metadata
to the same chunk.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragwire.chunk import Chunk, Location
from ragwire.splitting.factories import check_chunking, get_code_splitter, get_markdown_splitter, get_splitter
from ragwire.splitting.markdown import split_sections
from ragwire.splitting.page_ranges import page_ranges
from ragwire.splitting.page_splitter import DEFAULT_PAGE_MARKER, PageSplitter

logger = logging.getLogger(__name__)

STRATEGIES: tuple[str, ...] = ("markdown", "recursive", "code", "page")
HEADING_SEPARATOR = " > "


def split_text(
    text: str,
    *,
    strategy: str,
    chunk_size: int,
    chunk_overlap: int,
    separators: Sequence[str] | None = None,
    page_marker: str = DEFAULT_PAGE_MARKER,
    max_heading_level: int = 2,
    pages: Sequence[Mapping[str, Any]] | None = None,
    file_type: str | None = None,
) -> list[Chunk]:
    """Split a document into chunks with the given strategy.

    Strategies:
        ``markdown``: sections under headings (fenced code ignored), each piece with its
        ``heading_path`` (``"Guide > Install > Linux"``, absent before the first heading);
        sections longer than ``chunk_size`` are split further with the markdown splitter.
        ``recursive``: :func:`get_splitter` with ``separators``.
        ``code``: :func:`get_code_splitter`.
        ``page``: pages from :class:`PageSplitter` (``pages`` when given, else found in
        ``text`` by marker, or by headings for markdown and HTML ``file_type``); a page
        longer than ``chunk_size`` is cut into page-local pieces with the markdown
        splitter, never crossing a page.  Every piece carries its page's ``page_number``,
        ``page_total`` and, when known, ``page_label``.

    With the other strategies, ``pages`` (PageLoader's PDF pages or PPTX slides, whose
    text may differ in layout from ``text``) only locates each piece: it gets
    ``page_number`` (first page), ``page_end`` (last page), ``page_total`` and the first
    page's ``page_label`` when the piece can be placed (see :mod:`.page_ranges`).

    Empty and whitespace-only pieces are dropped.  The result is deterministic.

    Raises:
        ValueError: unknown strategy or out-of-range chunk settings (the message names the field).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
    if strategy == "page":
        check_chunking(chunk_size, chunk_overlap)
        splitter = PageSplitter(page_marker=page_marker, max_heading_level=max_heading_level)
        return _page_local(splitter.split(text, file_type=file_type, pages=pages), chunk_size, chunk_overlap)
    check_chunking(chunk_size, chunk_overlap)
    if strategy == "markdown":
        pieces = _merge_tiny(_markdown_pieces(text, chunk_size, chunk_overlap), chunk_size)
    else:
        if strategy == "code":
            texts = get_code_splitter(chunk_size, chunk_overlap).split_text(text)
        else:
            texts = get_splitter(chunk_size, chunk_overlap, separators).split_text(text)
        pieces = _merge_tiny([Chunk(chunk) for chunk in texts if chunk.strip()], chunk_size)
    return _with_page_ranges(pieces, pages) if pages else pieces


def _page_local(chunks: Sequence[Mapping[str, Any]], chunk_size: int, chunk_overlap: int) -> list[Chunk]:
    """Each page as one piece, or as several when it is longer than ``chunk_size``.

    One vector per long page would embed only its opening (all-MiniLM-L6-v2 reads 256
    tokens), so the rest of the page could never be found by meaning.
    """
    splitter = get_markdown_splitter(chunk_size, chunk_overlap)
    pieces: list[Chunk] = []
    for chunk in chunks:
        metadata = _page_metadata(chunk)
        parts = [chunk["text"]] if len(chunk["text"]) <= chunk_size else splitter.split_text(chunk["text"])
        pieces.extend(Chunk.at(part.strip(), metadata) for part in parts if part.strip())
    return pieces


def _with_page_ranges(pieces: list[Chunk], pages: Sequence[Mapping[str, Any]]) -> list[Chunk]:
    try:
        ranges = page_ranges([piece.text for piece in pieces], pages)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # odd pages: lose the page fields, never the file
        logger.warning("page ranges skipped: unusable pages (%s: %s)", type(exc).__name__, exc)
        return pieces
    return [Chunk.at(piece.text, {**piece.metadata, **found}) for piece, found in zip(pieces, ranges, strict=True)]


def _merge_tiny(pieces: list[Chunk], chunk_size: int) -> list[Chunk]:
    """Fold a very short piece (a lone title line, say) into the next one of the same section.

    A title cut off from its text is a poor chunk: it matches queries but says nothing.
    The merged chunk may exceed ``chunk_size`` by at most a tenth of it.
    """
    limit = max(chunk_size // 10, 1)
    out: list[Chunk] = []
    carry: Chunk | None = None
    for piece in pieces:
        if carry is not None:
            if carry.metadata == piece.metadata:
                piece = replace(piece, text=f"{carry.text}\n\n{piece.text}")
            else:
                out.append(carry)
            carry = None
        if len(piece.text.strip()) < limit:
            carry = piece
        else:
            out.append(piece)
    if carry is not None:
        out.append(carry)
    return out


def _page_metadata(chunk: Mapping[str, Any]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"page_number": chunk["page_number"], "page_total": chunk["page_total"]}
    if chunk["page_label"] is not None:
        metadata["page_label"] = chunk["page_label"]
    return metadata


def _markdown_pieces(text: str, chunk_size: int, chunk_overlap: int) -> list[Chunk]:
    splitter = get_markdown_splitter(chunk_size, chunk_overlap)
    pieces: list[Chunk] = []

    def emit(content: str, trail: list[tuple[int, str]]) -> None:
        path = HEADING_SEPARATOR.join(title for _, title in trail if title) or None
        parts = [content] if len(content) <= chunk_size else splitter.split_text(content)
        pieces.extend(Chunk(part, Location(heading_path=path)) for part in parts if part.strip())

    trail: list[tuple[int, str]] = []  # (level, title) of the headings above the current section
    carried = ""  # headings with no text of their own travel into the next section
    for section in split_sections(text):
        if section.level:
            while trail and trail[-1][0] >= section.level:
                trail.pop()
            trail.append((section.level, section.title or ""))
            if _heading_only(section.text):
                carried += section.text.strip() + "\n\n"
                continue
        content = (carried + section.text).strip()
        carried = ""
        if content:
            emit(content, trail)
    if carried.strip():
        emit(carried.strip(), trail)
    return pieces


def _heading_only(section_text: str) -> bool:
    return len(section_text.strip().splitlines()) <= 1
