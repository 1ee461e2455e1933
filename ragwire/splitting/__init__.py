"""Text → chunks: markdown, recursive, code and page strategies."""

from __future__ import annotations

from ragwire.splitting.chunker import STRATEGIES, Chunk, split_text
from ragwire.splitting.factories import get_code_splitter, get_markdown_splitter, get_splitter
from ragwire.splitting.page_splitter import PageChunk, PageSplitter

__all__ = [
    "STRATEGIES",
    "Chunk",
    "PageChunk",
    "PageSplitter",
    "get_code_splitter",
    "get_markdown_splitter",
    "get_splitter",
    "split_text",
]
