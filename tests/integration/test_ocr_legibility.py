"""OCR in one pass, upright and legible, within a budget (issue 37), read by the real Tesseract.

Pages are drawn here with Pillow in DejaVu Sans: turned, tilted, or photographed on a
gradient with sensor noise.  Engine runs are counted by a ``tesseract`` wrapper put first
on PATH, which logs each call and runs the real binary.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main
from ragwire.config import load_config
from ragwire.loaders import PageLoader
from ragwire.loaders.formats import IMAGE_EXTENSIONS
from ragwire.loaders.ocr import OcrSettings
from ragwire.loaders.page_loader import PageMapLoader
from tests.integration.helpers import write_config
from tests.pdfs import SCAN_DPI as DPI
from tests.pdfs import pdf_bytes, write_scan

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="the tesseract binary is not installed (apt-get install tesseract-ocr)"
)
TESSERACT = OcrSettings.choose("tesseract", dpi=DPI)
EXAMPLE_CONFIG = Path(__file__).resolve().parents[2] / "config.yaml.example"
LINES = [
    "The quarterly maintenance report covers the pumping",
    "station on Harbour Road. Inspectors found corrosion on",
    "valve 17 and recommended the replacement of the gasket.",
    "The secret code of the warehouse is pelican 5521.",
]


def text_page(lines: list[str] = LINES, size: int = 28):
    """A white page of dark text lines, as a clean scan gives."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype("DejaVuSans.ttf", size)
    image = Image.new("L", (1240, 120 + 50 * len(lines) + 80), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 100 + i * 50), line, font=font, fill=0)
    return image


def photo_page(seed: int = 1):
    """Dark grey text on paper lit from one corner (250 fading to 50), blurred, with sensor noise."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    width, height = 900, 500
    x = np.linspace(0, 1, width)[None, :]
    y = np.linspace(0, 1, height)[:, None]
    paper = np.broadcast_to(250 - 200 * (x + y) / 2, (height, width))
    mask = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(mask)
    for i, line in enumerate(["The secret code of the warehouse is pelican 5521.",
                              "Deliveries arrive on Tuesdays at the north gate."]):
        draw.text((40, 150 + i * 45), line, font=ImageFont.truetype("DejaVuSans.ttf", 20), fill=255)
    ink = np.asarray(mask) / 255.0
    pixels = paper * (1 - ink) + paper * 0.35 * ink + np.random.default_rng(seed).normal(0, 8, (height, width))
    return Image.fromarray(pixels.clip(0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.8))


def save(image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path


@pytest.fixture
def engine_runs(tmp_path, monkeypatch):
    """A list that reads back how many times tesseract was run to read or orient a page."""
    real = shutil.which("tesseract")
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "tesseract-runs.log"
    wrapper = folder / "tesseract"
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *--list-langs*) ;; *) echo "$*" >> {log} ;; esac\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")

    def count() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0

    return count


@needs_tesseract
def test_a_three_page_scan_ingested_with_the_markdown_splitter_costs_three_engine_runs_not_six(tmp_path, engine_runs):
    scan = write_scan(tmp_path / "docs" / "scan.pdf", ["Zephyr Logistics quarterly invoice",
                                                       "Second page mentions the walrus budget",
                                                       "Third page lists the pelican count"])
    rag = RAGWire(write_config(tmp_path, loader={"ocr": "tesseract", "ocr_dpi": DPI}))

    stats = rag.ingest_documents([scan])

    assert (stats["processed"], stats["failed"]) == (1, 0), stats
    assert engine_runs() == 3
    assert "walrus" in rag.retrieve("walrus", top_k=1, search_type="keyword")[0].page_content.lower()


@needs_tesseract
def test_a_blank_scanned_page_costs_no_engine_run(tmp_path, engine_runs):
    scan = write_scan(tmp_path / "scan.pdf", ["Zephyr Logistics quarterly invoice", ""])

    result = PageLoader(ocr=TESSERACT).load(scan)

    assert result["success"], result["error"]
    assert engine_runs() == 1
    assert result["pages"][1]["text"] == ""


@needs_tesseract
@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_page_turned_a_quarter_or_half_way_is_read_upright_and_says_how_it_was_turned(tmp_path, turn):
    image = save(text_page().rotate(turn, expand=True), tmp_path / f"turned-{turn}.png")

    result = PageLoader(ocr=TESSERACT).load(image)

    assert result["success"], result["error"]
    page = result["pages"][0]
    assert "pelican 5521" in page["text"] and "Harbour Road" in page["text"]
    # Tesseract's own layout analysis reads some pages turned clockwise as they are: no turn to record.
    upright = {(360 - turn) % 360} if turn != 270 else {0, 90}
    assert page.get("ocr_rotation", 0) in upright
    assert page["ocr_confidence"] > 0.8


@needs_tesseract
def test_a_page_tilted_5_degrees_keeps_its_words_whole_and_in_order(tmp_path):
    image = save(text_page().rotate(5, expand=True, fillcolor=255), tmp_path / "tilted.png")

    result = PageLoader(ocr=TESSERACT).load(image)

    assert result["success"], result["error"]
    assert "The secret code of the warehouse is pelican 5521." in result["text_content"]


@needs_tesseract
def test_a_photo_of_dark_text_on_a_gradient_is_read_not_called_blank(tmp_path):
    image = save(photo_page(), tmp_path / "photo.png")

    result = PageLoader(ocr=TESSERACT).load(image)

    assert result["success"], result["error"]
    assert "pelican 5521" in result["text_content"] and "Tuesdays" in result["text_content"]


def test_a_300_page_blank_scan_is_refused_at_the_page_budget_in_one_line_before_any_page_is_read(tmp_path):
    scan = tmp_path / "blank-300.pdf"
    scan.write_bytes(pdf_bytes([""] * 300))
    started = time.monotonic()

    result = PageMapLoader(ocr=OcrSettings.choose("auto", dpi=DPI)).load(scan)

    assert not result["success"]
    if OcrSettings.choose("auto").engine is not None:
        assert result["error"] == (
            "blank-300.pdf: 300 pages need OCR, over the budget of 200 (loader.ocr_max_pages)"
            " — raise loader.ocr_max_pages or split the file"
        )
    assert time.monotonic() - started < 30


def test_the_ocr_budget_is_configurable_and_caps_the_time_pages_add(tmp_path):
    config = load_config(write_config(tmp_path, loader={"ocr_max_pages": 500, "ocr_timeout_s": 600}))
    settings = config.loader.ocr_settings()

    assert (settings.max_pages, settings.file_timeout_s) == (500, 600)


@needs_tesseract
def test_ingest_of_a_folder_holding_one_png_with_the_example_config_ingests_it(tmp_path):
    example = yaml.safe_load(EXAMPLE_CONFIG.read_text(encoding="utf-8"))
    assert set(IMAGE_EXTENSIONS) <= set(example["loader"]["extensions"])
    config = write_config(tmp_path, loader={**example["loader"], "ocr_dpi": DPI})
    save(text_page(), tmp_path / "photos" / "note.png")

    done = CliRunner().invoke(main, ["ingest", str(tmp_path / "photos"), "--config", str(config), "--json"],
                              catch_exceptions=False)

    assert done.exit_code == 0, done.output
    stats = json.loads(done.stdout)
    assert (stats["total"], stats["processed"], stats["failed"]) == (1, 1, 0), stats


def test_a_png_named_pdf_is_called_a_png_image(tmp_path):
    buffer = io.BytesIO()
    text_page().save(buffer, "PNG")
    fake = tmp_path / "report.pdf"
    fake.write_bytes(buffer.getvalue())

    for loader in (PageLoader(), PageMapLoader()):
        result = loader.load(fake)

        assert result["error"] == "report.pdf: this .pdf is a PNG image, not a PDF — rename it to .png"


def test_a_damaged_tiff_says_so_without_a_python_object_in_the_message(tmp_path):
    buffer = io.BytesIO()
    text_page().save(buffer, "TIFF")
    damaged = tmp_path / "scan.tiff"
    damaged.write_bytes(buffer.getvalue()[:8] + b"\x00" * 64)

    result = PageLoader(ocr=TESSERACT).load(damaged)

    assert not result["success"]
    assert "object at 0x" not in result["error"] and "\n" not in result["error"]
    if TESSERACT.engine is not None:
        assert result["error"].startswith("scan.tiff: a damaged TIFF image (")


def test_ingest_of_a_folder_says_in_one_line_how_many_files_its_extensions_leave_out(tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "note.txt").write_text("The pumping station on Harbour Road needs a new gasket.", encoding="utf-8")
    for name in ("a.png", "b.png", "c.jpg"):
        save(text_page(), folder / name)
    config = str(write_config(tmp_path, loader={"extensions": [".txt"]}))

    text = CliRunner().invoke(main, ["ingest", str(folder), "--config", config], catch_exceptions=False)
    as_json = CliRunner().invoke(main, ["ingest", str(folder), "--config", config, "--json"], catch_exceptions=False)

    line = ("3 files of a type left out of loader.extensions (.jpg ×1, .png ×2)"
            " — add the extension to loader.extensions to ingest them")
    assert text.exit_code == 0 and f"not ingested: {folder} ({line}" in text.output
    assert [left["reason"].startswith(line) for left in json.loads(as_json.stdout)["not_walked"]] == [True]


@needs_tesseract
def test_a_page_still_unsure_after_every_retry_is_stored_and_named_in_the_run_stats_with_its_confidence(tmp_path):
    from PIL import ImageFilter

    from tests.pdfs import page_image

    folder = tmp_path / "inbox"
    save(page_image("Zephyr Logistics quarterly invoice").filter(ImageFilter.GaussianBlur(4)), folder / "blurred.png")
    config = str(write_config(tmp_path, loader={"ocr": "tesseract", "ocr_dpi": DPI}))

    done = CliRunner().invoke(main, ["ingest", str(folder), "--config", config, "--json"], catch_exceptions=False)

    stats = json.loads(done.stdout)
    assert stats["processed"] == 1, stats
    [doubtful] = stats["ocr_low_confidence"]
    assert (doubtful["file"], doubtful["page"]) == (str(folder / "blurred.png"), 1)
    assert 0 < doubtful["ocr_confidence"] < 0.6
    again = CliRunner().invoke(main, ["ingest", str(folder), "--config", config, "--force"], catch_exceptions=False)
    assert f"low OCR confidence: {folder / 'blurred.png'} page 1 (" in again.output
