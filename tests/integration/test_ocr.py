"""OCR of scanned PDFs and images: built here (text drawn with Pillow, no text layer), read by the real engines.

Kept fast: one or two short lines of large text per page, rendered and read at 100 dpi.
Tests that need the Tesseract binary skip where it is not installed (CI installs it).
"""

from __future__ import annotations

import io
import shutil
import struct
import time
import zlib
from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.errors import ConfigError
from ragwire.loaders import PageLoader
from ragwire.loaders.ocr import OcrSettings, tesseract_languages
from ragwire.loaders.page_loader import PageMapLoader
from tests.integration.helpers import write_config
from tests.pdfs import SCAN_DPI as DPI
from tests.pdfs import page_image, write_pdf, write_scan

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="the tesseract binary is not installed (apt-get install tesseract-ocr)"
)
TESSERACT = OcrSettings.choose("tesseract", dpi=DPI)


def write_mixed(path: Path, tmp_path: Path) -> Path:
    """Page 1 has a text layer; page 2 is a scanned image."""
    from pypdf import PdfReader, PdfWriter

    text = write_pdf(tmp_path / "text-part.pdf", ["The quarterly report of the Lindqvist cooperative covers"
                                                  " revenue, staffing and the new warehouse in Uppsala."])
    scan = write_scan(tmp_path / "scan-part.pdf", ["Appendix walrus budget 4711"])
    writer = PdfWriter()
    writer.append(PdfReader(text))
    writer.append(PdfReader(scan))
    writer.write(path)
    return path


def ocr_config(tmp_path: Path, ocr: str = "tesseract", store: Path | None = None) -> Path:
    shared = {"vectorstore": {"path": str(store)}} if store else {}
    return write_config(tmp_path, loader={"ocr": ocr, "ocr_dpi": DPI}, splitter={"strategy": "page"}, **shared)


@needs_tesseract
def test_a_scanned_pdf_is_ingested_and_keyword_search_finds_its_text_on_its_page(tmp_path):
    scan = write_scan(tmp_path / "docs" / "scan.pdf", ["Zephyr Logistics quarterly invoice",
                                                       "Second page mentions the walrus budget"])
    rag = RAGWire(ocr_config(tmp_path))

    stats = rag.ingest_documents([scan])

    assert (stats["processed"], stats["failed"]) == (1, 0), stats
    hits = rag.retrieve("walrus", top_k=1, search_type="keyword")
    assert "walrus" in hits[0].page_content.lower()
    meta = hits[0].metadata
    assert (meta["page_number"], meta["ocr"], meta["ocr_engine"]) == (2, True, "tesseract")
    assert 0.5 < meta["ocr_confidence"] <= 1
    ocrd = rag.retrieve("invoice", top_k=5, filters={"ocr": True})
    assert {d.metadata["page_number"] for d in ocrd} == {1, 2}
    assert rag.retrieve("invoice", top_k=5, filters={"ocr_engine": "tesseract"}) == ocrd


@needs_tesseract
def test_a_mixed_pdf_is_ocrd_only_on_its_image_page(tmp_path):
    mixed = write_mixed(tmp_path / "mixed.pdf", tmp_path)

    for loader in (PageLoader(ocr=TESSERACT), PageMapLoader(ocr=TESSERACT)):
        result = loader.load(mixed)

        assert result["success"], result["error"]
        first, second = result["pages"]
        assert "Lindqvist" in first["text"] and "ocr" not in first
        assert "walrus" in second["text"] and second["ocr"] is True
        assert "Lindqvist" in result["text_content"] and "walrus" in result["text_content"]


@needs_tesseract
def test_a_png_and_a_multi_page_tiff_are_sources(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    page_image("Whiteboard photo about heron migration").save(docs / "board.png")
    first, second = page_image("Faxed form page one"), page_image("Signed by Ottoline Brassfield")
    first.save(docs / "fax.tiff", save_all=True, append_images=[second])
    rag = RAGWire(ocr_config(tmp_path))

    stats = rag.ingest_directory(docs)  # the default extensions include images where OCR reads them

    assert (stats["processed"], stats["failed"]) == (2, 0), stats
    heron = rag.retrieve("heron", top_k=1, search_type="keyword")[0]
    assert heron.metadata["file_name"] == "board.png" and heron.metadata["ocr"] is True
    signed = rag.retrieve("Brassfield", top_k=1, search_type="keyword")[0]
    assert (signed.metadata["file_name"], signed.metadata["page_number"]) == ("fax.tiff", 2)


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` × ``height`` pixels (a decompression bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def test_a_decompression_bomb_image_is_refused_quickly_with_a_one_line_reason(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_claiming(60_000, 60_000))  # 3.6 Gpx claimed in 100 bytes

    started = time.monotonic()
    result = PageLoader(ocr=OcrSettings("tesseract", dpi=DPI)).load(bomb)

    assert time.monotonic() - started < 2
    assert result["success"] is False and "\n" not in result["error"]
    assert result["error"].startswith("bomb.png: image of 3,600 Mpx is over the 100 Mpx limit")


def test_a_scan_without_an_ocr_engine_fails_naming_how_to_install_one(tmp_path, monkeypatch):
    scan = write_scan(tmp_path / "scan.pdf", ["Nothing but pixels here"])
    page_image("A photo").save(tmp_path / "photo.png")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no tesseract binary to be found

    wanted = OcrSettings.choose("tesseract")
    off = OcrSettings.choose("off")

    assert wanted.engine is None
    failed = PageLoader(ocr=wanted).load(scan)["error"]
    assert failed == ("scan.pdf: no extractable text (empty, or a scanned PDF without a text layer)"
                      " — loader.ocr: tesseract is not installed — apt-get install tesseract-ocr tesseract-ocr-eng")
    assert "pip install 'ragwire[ocr]'" in PageLoader(ocr=off).load(tmp_path / "photo.png")["error"]


@needs_tesseract
def test_turning_ocr_on_reprocesses_only_the_files_that_failed_or_lost_pages_for_lack_of_text(tmp_path):
    docs = tmp_path / "docs"
    write_scan(docs / "scan.pdf", ["Zephyr Logistics quarterly invoice"])
    write_mixed(docs / "mixed.pdf", tmp_path)
    write_pdf(docs / "text.pdf", ["A plain text PDF about the garden irrigation schedule and its valves."])
    (docs / "notes.md").write_text("# Notes\n\nTomatoes need six hours of sun.", encoding="utf-8")

    off = RAGWire(ocr_config(tmp_path / "off", "off", store=tmp_path / "store"))
    before = off.ingest_directory(docs)
    assert (before["processed"], before["failed"]) == (3, 1), before
    assert "scan.pdf: no extractable text" in before["errors"][0]["error"]
    assert "apt-get install tesseract-ocr" in before["errors"][0]["error"]
    off.close()

    on = RAGWire(ocr_config(tmp_path / "on", store=tmp_path / "store"))  # the same store
    after = on.ingest_directory(docs)

    # The scan (which failed) and the mixed PDF (whose image page was empty) only.
    assert (after["processed"], after["skipped"], after["failed"]) == (2, 2, 0), after
    assert on.retrieve("walrus", top_k=1, search_type="keyword")[0].metadata["file_name"] == "mixed.pdf"
    again = on.ingest_directory(docs)
    assert (again["processed"], again["skipped"]) == (0, 4), again


@needs_tesseract
def test_a_missing_tesseract_language_pack_is_a_config_error_naming_its_package(tmp_path):
    if "deu" in tesseract_languages():
        pytest.skip("the German pack is installed here")
    with pytest.raises(ConfigError, match=r"loader\.ocr_languages: .*apt-get install tesseract-ocr-deu"):
        RAGWire(write_config(tmp_path, loader={"ocr_languages": ["eng", "deu"]}))


@needs_tesseract
def test_a_long_scan_gets_a_time_allowance_per_ocrd_page(tmp_path):
    scan = write_scan(tmp_path / "long.pdf", ["First page of the scan", "Second page of the scan"])

    generous = PageLoader(timeout_s=0.5, ocr=OcrSettings("tesseract", dpi=DPI, page_timeout_s=30)).load(scan)
    stingy = PageLoader(timeout_s=0.5, ocr=OcrSettings("tesseract", dpi=DPI, page_timeout_s=0.01)).load(scan)

    assert generous["success"], generous["error"]
    assert stingy["success"] is False
    assert "took longer than 0.01 s on one page" in stingy["error"]  # a page's own limit


@pytest.mark.skipif(OcrSettings.choose("rapidocr").engine is None, reason="RapidOCR is not installed (ragwire[ocr])")
def test_rapidocr_reads_an_image(tmp_path):
    buffer = io.BytesIO()
    page_image("Invoice 4711 from Zephyr").save(buffer, "PNG")
    (tmp_path / "invoice.png").write_bytes(buffer.getvalue())

    result = PageLoader(ocr=OcrSettings.choose("rapidocr")).load(tmp_path / "invoice.png")

    assert result["success"], result["error"]
    assert "4711" in result["text_content"] and "Zephyr" in result["text_content"]
    assert result["pages"][0]["ocr_engine"] == "rapidocr"
