"""Build small PDFs: text ones by hand (no reportlab), one Helvetica text stream per page; scans with Pillow."""

from __future__ import annotations

import textwrap
from pathlib import Path


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_bytes(pages: list[str], *, width: int = 90) -> bytes:
    """A PDF with one page per string; each string is wrapped at ``width`` characters.

    An empty string gives a page with no text at all (like a scanned page).
    """
    streams = []
    for text in pages:
        lines = [wrapped for para in text.split("\n") for wrapped in (textwrap.wrap(para, width) or [""])]
        body = "".join(f"({_escape(line)}) Tj T*\n" for line in lines) if text else ""
        streams.append(f"BT /F1 9 Tf 11 TL 40 800 Td\n{body}ET".encode("latin-1") if text else b"")
    return _pdf(streams)


def table_pdf_bytes(rows: list[tuple[str, str]]) -> bytes:
    """A one-page PDF of a two-column price list without rules: each row's description at the left margin and its
    amount far to the right, as invoices and fee sheets lay them out (pdfminer reads such columns one after the
    other)."""
    body = "".join(f"BT /F1 10 Tf {x} {780 - 16 * i} Td ({_escape(cell)}) Tj ET\n"
                   for i, row in enumerate(rows) for x, cell in zip((40, 430), row, strict=True))
    return _pdf([body.encode("latin-1")])


def _pdf(streams: list[bytes]) -> bytes:
    """A PDF of one A4 page per content stream, in Helvetica."""
    objects: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree (filled in below)
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for stream in streams:
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content_id = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % content_id
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def write_pdf(
    path: Path,
    pages: list[str],
    *,
    labels: list[tuple[int, int, str, str | None]] | None = None,
    password: str | None = None,
) -> Path:
    """Write a text PDF; ``labels`` are ``(first_index, last_index, style, prefix)`` ranges for
    ``PdfWriter.set_page_label`` (style ``"/r"``, ``"/D"``…); ``password`` encrypts it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf_bytes(pages))
    if labels or password:
        from pypdf import PdfReader, PdfWriter

        writer = PdfWriter()
        writer.append(PdfReader(path))
        for first, last, style, prefix in labels or []:
            writer.set_page_label(first, last, style=style, prefix=prefix)
        if password:
            writer.encrypt(password, algorithm="AES-128")
        writer.write(path)
    return path


# Scans are drawn at this resolution, in large type, so an OCR engine reads them fast and surely.
SCAN_DPI = 100


def page_image(text: str):
    """An 850x260 px image of one line of 36 px DejaVu Sans text, drawn at (30, 100)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (850, 260), 255)
    ImageDraw.Draw(image).text((30, 100), text, font=ImageFont.truetype("DejaVuSans.ttf", 36), fill=0)
    return image


def write_scan(path: Path, lines: list[str]) -> Path:
    """A PDF of page images only (one line a page, at :data:`SCAN_DPI`): no text layer at all."""
    images = [page_image(line) for line in lines]
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], resolution=SCAN_DPI)
    return path

