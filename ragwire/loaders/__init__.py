"""Files → text (+ pages), and safe directory walking.

Importing this package is cheap: markitdown, pypdf and python-pptx are imported
on first use.
"""

from __future__ import annotations

from ragwire.loaders.base import LoadResult, Page, PageLoadResult
from ragwire.loaders.formats import SUPPORTED_EXTENSIONS
from ragwire.loaders.markitdown_loader import MarkItDownLoader
from ragwire.loaders.page_loader import PageLoader
from ragwire.loaders.text import decode_bytes, looks_binary
from ragwire.loaders.walk import WalkResult, walk_directory

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "LoadResult",
    "MarkItDownLoader",
    "Page",
    "PageLoadResult",
    "PageLoader",
    "WalkResult",
    "decode_bytes",
    "looks_binary",
    "walk_directory",
]
