"""Factories for langchain's RecursiveCharacterTextSplitter: markdown, generic and code flavours.

Arguments are checked here, when the splitter is built, so a bad chunk size
fails at startup rather than halfway through an ingest.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")


def get_markdown_splitter(chunk_size: int = 1000, chunk_overlap: int = 200) -> RecursiveCharacterTextSplitter:
    """A splitter that cuts at markdown headings first, then paragraphs, lines and words.

    Args:
        chunk_size: Maximum characters per chunk.
        chunk_overlap: Characters shared by consecutive chunks; smaller than ``chunk_size``.

    Raises:
        ValueError: an argument is out of range (the message names it).
    """
    check_chunking(chunk_size, chunk_overlap)
    return RecursiveCharacterTextSplitter.from_language(
        Language.MARKDOWN, chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )


def get_splitter(
    chunk_size: int = 1000,
    chunk_overlap: int = 200,
    separators: Sequence[str] | None = None,
) -> RecursiveCharacterTextSplitter:
    """A generic recursive splitter: ``\\n\\n`` → ``\\n`` → space → character by default.

    Args:
        chunk_size: Maximum characters per chunk.
        chunk_overlap: Characters shared by consecutive chunks; smaller than ``chunk_size``.
        separators: Separators to try, in order.

    Raises:
        ValueError: an argument is out of range (the message names it).
    """
    check_chunking(chunk_size, chunk_overlap)
    if separators is None:
        separators = DEFAULT_SEPARATORS
    elif isinstance(separators, str) or not all(isinstance(s, str) for s in separators) or not separators:
        raise ValueError(f"separators must be a non-empty list of strings, got {separators!r}")
    return RecursiveCharacterTextSplitter(
        separators=list(separators), chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )


def get_code_splitter(chunk_size: int = 2000, chunk_overlap: int = 200) -> RecursiveCharacterTextSplitter:
    """A splitter that cuts Python source at class and function boundaries first.

    Args:
        chunk_size: Maximum characters per chunk.
        chunk_overlap: Characters shared by consecutive chunks; smaller than ``chunk_size``.

    Raises:
        ValueError: an argument is out of range (the message names it).
    """
    check_chunking(chunk_size, chunk_overlap)
    return RecursiveCharacterTextSplitter.from_language(
        Language.PYTHON, chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )


def check_chunking(chunk_size: int, chunk_overlap: int) -> None:
    """Check ``chunk_size > 0`` and ``0 <= chunk_overlap < chunk_size``.

    Raises:
        ValueError: naming the field and the rule it breaks.
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if isinstance(chunk_overlap, bool) or not isinstance(chunk_overlap, int) or chunk_overlap < 0:
        raise ValueError(f"chunk_overlap must be an integer of 0 or more, got {chunk_overlap!r}")
    if chunk_overlap >= chunk_size:
        raise ValueError(
            f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size});"
            f" about 20% of chunk_size ({chunk_size // 5}) is a good start"
        )
