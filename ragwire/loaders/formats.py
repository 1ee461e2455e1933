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


#: What a file's first bytes say it is, and the extension that fits; checked in order.
_MAGIC: tuple[tuple[bytes, int, str, str], ...] = (
    (b"%PDF-", -1, "a PDF document", ".pdf"),
    (b"\x89PNG\r\n\x1a\n", 0, "a PNG image", ".png"),
    (b"\xff\xd8\xff", 0, "a JPEG image", ".jpg"),
    (b"II*\x00", 0, "a TIFF image", ".tif"),
    (b"MM\x00*", 0, "a TIFF image", ".tif"),
    (b"GIF8", 0, "a GIF image (not supported: convert it to PNG)", ".png"),
    (b"WEBP", 8, "a WebP image", ".webp"),
    (b"BM", 0, "a BMP image", ".bmp"),
    (b"PK\x03\x04", 0, "a ZIP archive (or an Office file)", ".docx"),
)
#: The kinds :func:`sniff` names for the images ragwire reads.
IMAGE_KINDS = frozenset(kind for _, _, kind, ext in _MAGIC if ext in IMAGE_EXTENSIONS and "GIF" not in kind)


def sniff(data: bytes) -> str | None:
    """What ``data`` is by its magic bytes ("a PNG image"), or ``None`` when it is none of the known kinds.

    An offset of -1 means anywhere in the first KiB (PDF writers may put junk before ``%PDF-``).
    """
    for magic, offset, kind, _ in _MAGIC:
        found = magic in data[:1024] if offset < 0 else data[offset:offset + len(magic)] == magic
        if found:
            return kind
    return None


def fitting_extension(kind: str) -> str:
    """The extension a file of ``kind`` (as :func:`sniff` names it) should have."""
    return next(ext for _, _, name, ext in _MAGIC if name == kind)
