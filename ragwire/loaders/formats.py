"""The file types ragwire reads, as lowercase extensions with a leading dot."""

from __future__ import annotations

from collections.abc import Iterable

#: Plain-text formats that ragwire decodes itself (no markitdown involved for .txt/.md/.csv).
TEXT_EXTENSIONS: tuple[str, ...] = (".txt", ".md", ".markdown", ".csv", ".html", ".htm")

#: Binary office formats converted by markitdown.
OFFICE_EXTENSIONS: tuple[str, ...] = (".pdf", ".docx", ".pptx", ".xlsx", ".xlsm")

#: Images, read by OCR (see :mod:`ragwire.loaders.scan`); a multi-page TIFF gives pages.
IMAGE_EXTENSIONS: tuple[str, ...] = (".bmp", ".jpeg", ".jpg", ".png", ".tif", ".tiff", ".webp")

#: Every extension the loaders accept.
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(sorted(TEXT_EXTENSIONS + OFFICE_EXTENSIONS + IMAGE_EXTENSIONS))


def normalize_extensions(extensions: Iterable[str] | None) -> frozenset[str]:
    """Turn ``["pdf", ".DOCX"]`` into ``{".pdf", ".docx"}``; ``None`` means every supported one but images.

    Images are listed only when asked for: they are read only where an OCR engine is installed.

    Raises:
        ValueError: an extension is empty or not supported (the message lists the supported ones).
    """
    if extensions is None:
        return frozenset(SUPPORTED_EXTENSIONS) - frozenset(IMAGE_EXTENSIONS)
    if isinstance(extensions, str):
        extensions = [extensions]
    result = set()
    for raw in extensions:
        ext = str(raw).strip().lower()
        if not ext.strip("."):
            raise ValueError(f"extensions: empty extension {raw!r}")
        ext = "." + ext.lstrip(".")
        if ext not in SUPPORTED_EXTENSIONS:
            raise ValueError(
                f"extensions: {raw!r} is not supported (supported: {', '.join(SUPPORTED_EXTENSIONS)})"
            )
        result.add(ext)
    return frozenset(result)
