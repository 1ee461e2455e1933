"""Files → text (+ pages), and safe directory walking.

Importing this package is cheap: its names load on first access (the config
reads only the extension table, and a cold ``ragwire query`` never needs the
converters), and markitdown, pypdf and python-pptx are imported on first use.
PDF and Office conversions run in a child process with a time limit;
:func:`raised_outside_ragwire` tells a converter's exception from a ragwire bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragwire.lazy import lazy_names

if TYPE_CHECKING:
    from ragwire.loaders.base import LoadResult, Page, PageLoadResult
    from ragwire.loaders.formats import SUPPORTED_EXTENSIONS
    from ragwire.loaders.guard import raised_outside_ragwire
    from ragwire.loaders.markitdown_loader import MarkItDownLoader
    from ragwire.loaders.page_loader import PageLoader
    from ragwire.loaders.result import Loaded, LoadFailed, LoadOutcome
    from ragwire.loaders.text import decode_bytes, looks_binary
    from ragwire.loaders.walk import WalkResult, walk_directory

# Public name -> the module that defines it.
_HOMES = {
    "LoadResult": ".base", "Page": ".base", "PageLoadResult": ".base",
    "SUPPORTED_EXTENSIONS": ".formats",
    "raised_outside_ragwire": ".guard",
    "MarkItDownLoader": ".markitdown_loader",
    "PageLoader": ".page_loader",
    "Loaded": ".result", "LoadFailed": ".result", "LoadOutcome": ".result",
    "decode_bytes": ".text", "looks_binary": ".text",
    "WalkResult": ".walk", "walk_directory": ".walk",
}

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "LoadFailed",
    "LoadOutcome",
    "LoadResult",
    "Loaded",
    "MarkItDownLoader",
    "Page",
    "PageLoadResult",
    "PageLoader",
    "WalkResult",
    "decode_bytes",
    "looks_binary",
    "raised_outside_ragwire",
    "walk_directory",
]


__getattr__ = lazy_names(__name__, _HOMES)
