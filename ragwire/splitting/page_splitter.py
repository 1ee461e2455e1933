"""PageSplitter: exactly one chunk per page, with page_number / page_total / page_label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from ragwire.splitting.markdown import split_sections

DEFAULT_PAGE_MARKER = "<!-- pagebreak -->"
# File types whose headings start pages when there is no marker (HTML arrives as markdown).
HEADING_TYPES = frozenset({"md", "markdown", "html", "htm"})


class PageChunk(TypedDict):
    """One page as a chunk.  ``page_number`` is the page's position in the source document."""

    text: str
    page_number: int
    page_label: str | None
    page_total: int


class PageSplitter:
    """Turn pages into chunks, one per page: never sub-split, merged or truncated, no overlap.

    :meth:`split` takes PageLoader's pages (PDF pages, PPTX slides) when there are any;
    else the text between ``page_marker`` occurrences when the marker is present; else,
    for markdown and HTML, the sections under headings of ``max_heading_level`` or
    shallower (labelled with the heading); else the whole text as one page.

    Whitespace-only pages are dropped, but numbering is kept: ``page_number`` is the
    page's true position and ``page_total`` counts the dropped pages too.

    Args:
        page_marker: Separates pages in text; always wins over headings.
        max_heading_level: Deepest heading level (1-6) that starts a new page.

    Raises:
        ValueError: ``page_marker`` is empty or ``max_heading_level`` is not 1-6.
    """

    def __init__(self, page_marker: str = DEFAULT_PAGE_MARKER, max_heading_level: int = 2) -> None:
        if not isinstance(page_marker, str) or not page_marker:
            raise ValueError(f"page_marker must be a non-empty string, got {page_marker!r}")
        level_ok = isinstance(max_heading_level, int) and not isinstance(max_heading_level, bool)
        if not level_ok or not 1 <= max_heading_level <= 6:
            raise ValueError(f"max_heading_level must be an integer from 1 to 6, got {max_heading_level!r}")
        self.page_marker = page_marker
        self.max_heading_level = max_heading_level

    def split(
        self,
        text: str,
        file_type: str | None = None,
        pages: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[PageChunk]:
        """Split a document into pages.

        The first rule that applies decides:

        1. ``pages`` from the loader (PDF pages, PPTX slides) win: see :meth:`split_pages`.
        2. ``page_marker`` in the text: the text between markers, unlabelled.
        3. Markdown or HTML (``file_type`` ``"md"``, ``"markdown"``, ``"html"``, ``"htm"``,
           or ``None`` for text of unknown origin): the sections under headings of
           ``max_heading_level`` or shallower, labelled with the heading text; text before
           the first heading is an unlabelled page 1.
        4. Anything else: the whole text as one page.

        Args:
            text: The document's text.
            file_type: The file's extension, with or without the dot (``"pdf"``, ``".md"``).
            pages: PageLoader's ``pages`` (``None`` when the format has none).

        >>> PageSplitter().split("intro <!-- pagebreak --> details")[1]
        {'text': 'details', 'page_number': 2, 'page_label': None, 'page_total': 2}
        """
        if pages is not None:
            return self.split_pages(pages)
        if self.page_marker in text:
            parts: list[tuple[str, str | None]] = [(part, None) for part in text.split(self.page_marker)]
        elif _splits_at_headings(file_type):
            # Blank lines before the first heading are not a page (numbering starts at the heading).
            parts = [
                (section.text, section.title or None)
                for section in split_sections(text, self.max_heading_level)
                if section.level or section.text.strip()
            ]
        else:
            parts = [(text, None)]
        return _numbered(parts, total=len(parts))

    def split_pages(self, pages: Sequence[Mapping[str, Any]]) -> list[PageChunk]:
        """Turn PageLoader pages (``{"page_number", "page_label", "text"}``) into chunks.

        A page without ``page_number`` gets its position in the list.

        Raises:
            ValueError: a page has no ``text`` string.
        """
        entries: list[tuple[str, str | None, int]] = []
        for index, page in enumerate(pages, 1):
            if not isinstance(page, Mapping):
                raise ValueError(f"pages[{index - 1}] must be a dict with a 'text' key, got {type(page).__name__}")
            text = page.get("text") or ""
            if not isinstance(text, str):
                raise ValueError(f"pages[{index - 1}]: 'text' must be a string, got {type(text).__name__}")
            number = page.get("page_number") or index
            entries.append((text, page.get("page_label"), int(number)))
        total = max([len(entries)] + [number for _, _, number in entries])
        return [
            {"text": text.strip(), "page_number": number, "page_label": label, "page_total": total}
            for text, label, number in entries
            if text.strip()
        ]


def _splits_at_headings(file_type: str | None) -> bool:
    return file_type is None or file_type.lower().lstrip(".") in HEADING_TYPES


def _numbered(pages: list[tuple[str, str | None]], *, total: int) -> list[PageChunk]:
    return [
        {"text": text.strip(), "page_number": number, "page_label": label, "page_total": total}
        for number, (text, label) in enumerate(pages, 1)
        if text.strip()
    ]
