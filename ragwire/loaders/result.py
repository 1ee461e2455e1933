"""The typed result of loading one file: :class:`Loaded` (text, pages) or :class:`LoadFailed` (the error itself).

Inside ragwire these flow from the loaders to ingestion; the spec's result dict
(``success``, ``text_content``, ``error``…) is made only by the public ``load()``,
with :meth:`Loaded.to_dict` / :meth:`LoadFailed.to_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ragwire.errors import LoaderError
from ragwire.loaders.base import LoadResult, Page, PageLoadResult, file_type


@dataclass(frozen=True)
class Loaded:
    """A file that loaded: its text, and its pages (``None`` when the format has none or they were not read)."""

    path: Path
    text: str
    pages: list[Page] | None = None
    ok: ClassVar[bool] = True

    @property
    def file_type(self) -> str:
        """The extension without its dot, lowercase: ``"pdf"``."""
        return file_type(self.path)

    def to_dict(self, with_pages: bool = False) -> LoadResult | PageLoadResult:
        """The spec's result dict of ``MarkItDownLoader.load``; ``with_pages`` adds PageLoader's ``pages``."""
        out: LoadResult = {"success": True, "text_content": self.text, "file_name": self.path.name,
                           "file_type": self.file_type, "error": None}
        return {**out, "pages": self.pages} if with_pages else out


@dataclass(frozen=True)
class LoadFailed:
    """A file that did not load.  ``error`` is the exception itself, so its class and ``retryable`` survive."""

    path: Path
    error: LoaderError
    ok: ClassVar[bool] = False

    @property
    def file_type(self) -> str:
        return file_type(self.path)

    @property
    def message(self) -> str:
        """The one-line reason: the file name, what is wrong and the fix."""
        return str(self.error)

    @property
    def retryable(self) -> bool:
        """Whether a later attempt may succeed (the file was being replaced, no process could be started)."""
        return self.error.retryable

    def to_dict(self, with_pages: bool = False) -> LoadResult | PageLoadResult:
        """The spec's result dict of a failed ``load``: ``success: False`` and the one-line ``error``."""
        out: LoadResult = {"success": False, "text_content": None, "file_name": self.path.name,
                           "file_type": self.file_type, "error": self.message}
        return {**out, "pages": None} if with_pages else out


LoadOutcome = Loaded | LoadFailed
"""What loading one file gives: test ``outcome.ok`` to tell the two apart."""

__all__ = ["LoadFailed", "LoadOutcome", "Loaded"]
