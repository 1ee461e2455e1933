"""OCR engines compared: word accuracy and seconds per page, per engine and dpi, plus the corpus's two scans.

Synthetic A4 pages with known text are drawn with Pillow at each dpi (so a page is what
a scanner at that resolution gives): several fonts and sizes, a slightly rotated and
blurred page, a noisy one, and a table.  Word accuracy is the share of the known words
an engine returns in order (difflib's matching blocks over lowercase words), so merged
words ("SEATTLEGENERALHOSPITAL") count as misses, as they do for BM25.  Then the two
scanned PDFs of the shared corpus are rendered with pypdfium2 (the loader's renderer)
and read by both engines; they have no reference text, so the table gives words found,
mean confidence and the share of "words" over 15 letters (merged words).
Rendering is timed against pypdf's embedded-image extraction, the alternative.

    nice -n 10 python bench/ocr_bench.py                  # both engines, 150 and 300 dpi
    nice -n 10 python bench/ocr_bench.py --dpi 200 --engines tesseract
"""

from __future__ import annotations

import argparse
import difflib
import io
import random
import re
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ragwire.loaders import ocr  # noqa: E402
from ragwire.loaders.scan import _render  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "data" / "docs"
SCANS = ("MEDRPT-2024-PAT-3847_medical_report_scan.pdf", "ocr_test.pdf")
FONTS = {
    "sans": "DejaVuSans.ttf", "serif": "DejaVuSerif.ttf", "mono": "DejaVuSansMono.ttf",
    "liberation": "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
}
PROSE = (
    "The quarterly maintenance report covers the pumping station on Harbour Road. Inspectors found "
    "corrosion on valve 17 and recommended replacement before the winter season. Total cost is "
    "estimated at 4,250 euros, including labour and a spare gasket kit. The station manager, Mrs. "
    "Okonkwo, approved the order on 12 March 2024 and asked for a follow-up visit in June."
)
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def accuracy(reference: str, found: str) -> float:
    ref, hyp = words(reference), words(found)
    matcher = difflib.SequenceMatcher(None, ref, hyp, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / max(1, len(ref))


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if draw.textlength(trial, font=font) > width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def text_page(dpi: int, blocks: list[tuple[str, int, str]]) -> tuple[Image.Image, str]:
    """An A4 page of paragraphs, each ``(font, size in points, text)``; returns the image and its text."""
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    margin, y = dpi, dpi
    for font_name, points, text in blocks:
        font = ImageFont.truetype(FONTS[font_name], max(6, round(points * dpi / 72)))
        for line in _wrap(draw, text, font, width - 2 * margin):
            draw.text((margin, y), line, font=font, fill=0)
            y += int(points * dpi / 72 * 1.45)
        y += int(points * dpi / 72)
    return page, " ".join(text for _, _, text in blocks)


def table_page(dpi: int) -> tuple[Image.Image, str]:
    rows = [("Item", "Quantity", "Price"), ("Gasket kit", "2", "38.50"), ("Valve body", "1", "1,120.00"),
            ("Labour hours", "14", "980.00"), ("Travel", "3", "105.00"), ("Total", "", "2,243.50")]
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype(FONTS["sans"], round(11 * dpi / 72))
    x0, y0, cell_w, cell_h = dpi, dpi, int(2 * dpi), int(0.4 * dpi)
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            box = (x0 + c * cell_w, y0 + r * cell_h, x0 + (c + 1) * cell_w, y0 + (r + 1) * cell_h)
            draw.rectangle(box, outline=0, width=max(1, dpi // 100))
            draw.text((box[0] + dpi // 10, box[1] + dpi // 10), cell, font=font, fill=0)
    return page, " ".join(cell for row in rows for cell in row if cell)


def noisy(page: Image.Image, seed: int = 7) -> Image.Image:
    rng = random.Random(seed)
    pixels = page.load()
    for _ in range(page.width * page.height // 60):  # salt and pepper on ~1.7 % of pixels
        pixels[rng.randrange(page.width), rng.randrange(page.height)] = rng.choice((0, 255))
    return page


def pages(dpi: int) -> dict[str, tuple[Image.Image, str]]:
    mixed = [("sans", 11, PROSE), ("serif", 9, PROSE), ("mono", 10, PROSE[:200]), ("liberation", 14, PROSE[:160])]
    skewed, skew_text = text_page(dpi, [("serif", 11, PROSE)])
    skewed = skewed.rotate(1.5, expand=False, fillcolor=255).filter(ImageFilter.GaussianBlur(dpi / 300))
    noise, noise_text = text_page(dpi, [("sans", 10, PROSE)])
    return {
        "fonts+sizes": text_page(dpi, mixed),
        "rotated+blur": (skewed, skew_text),
        "noise": (noisy(noise), noise_text),
        "table": table_page(dpi),
    }


def timed(engine: ocr.OcrEngine, image: Image.Image) -> tuple[ocr.OcrText, float]:
    started = time.perf_counter()
    found = engine.recognize(image)
    return found, time.perf_counter() - started


def make_engine(name: str, dpi: int) -> ocr.OcrEngine:
    return ocr.get_engine(ocr.OcrSettings(name, dpi=dpi))


def synthetic(engines: list[str], dpis: list[int]) -> None:
    print("\n## Synthetic pages (known text): word accuracy / seconds per page")
    print("| engine | dpi | " + " | ".join(pages(72)) + " | mean accuracy | s/page |")
    print("|---|---|" + "---|" * 6)
    for name in engines:
        for dpi in dpis:
            engine = make_engine(name, dpi)
            engine.recognize(Image.new("L", (200, 60), 255))  # model loading is not a page's cost
            cells, scores, seconds = [], [], []
            for image, text in pages(dpi).values():
                found, took = timed(engine, image)
                score = accuracy(text, found.text)
                cells.append(f"{score:.1%}")
                scores.append(score)
                seconds.append(took)
            print(f"| {name} | {dpi} | " + " | ".join(cells)
                  + f" | {sum(scores) / len(scores):.1%} | {sum(seconds) / len(seconds):.1f} |", flush=True)


def corpus(engines: list[str], dpis: list[int]) -> None:
    import pypdfium2

    print("\n## The corpus's scans (no reference text)")
    print("| file | engine | dpi | pages | words | merged (>15 letters) | mean confidence | s/page | first words |")
    print("|---|---|---|---|---|---|---|---|---|")
    for file_name in SCANS:
        path = DOCS / file_name
        if not path.is_file():
            print(f"| {file_name} | missing at {DOCS} |")
            continue
        document = pypdfium2.PdfDocument(path.read_bytes())
        for dpi in dpis:
            started = time.perf_counter()
            images = [_render(document, i, dpi) for i in range(len(document))]
            render_s = (time.perf_counter() - started) / len(images)
            for name in engines:
                engine = make_engine(name, dpi)
                engine.recognize(Image.new("L", (200, 60), 255))
                texts, confidences, seconds = [], [], []
                for image in images:
                    found, took = timed(engine, image)
                    texts.append(found.text)
                    seconds.append(took)
                    if found.confidence is not None:
                        confidences.append(found.confidence)
                found_words = words(" ".join(texts))
                merged = sum(len(w) > 15 for w in found_words) / max(1, len(found_words))
                first = " ".join(" ".join(texts).split()[:8]).replace("|", "/")
                conf = f"{sum(confidences) / len(confidences):.2f}" if confidences else "-"
                print(f"| {file_name[:24]} | {name} | {dpi} | {len(images)} | {len(found_words)} | {merged:.1%} |"
                      f" {conf} | {sum(seconds) / len(seconds):.1f} (+{render_s:.2f} render) | {first} |", flush=True)
        document.close()


def render_choice() -> None:
    """pypdfium2 rendering against pypdf's embedded-image extraction, on the corpus scans."""
    import pypdfium2
    from pypdf import PdfReader

    print("\n## Getting the page image: seconds per page")
    print("| file | pypdfium2 render, 300 dpi | pypdf embedded images | images pypdf found |")
    print("|---|---|---|---|")
    for file_name in SCANS:
        path = DOCS / file_name
        if not path.is_file():
            continue
        data = path.read_bytes()
        started = time.perf_counter()
        document = pypdfium2.PdfDocument(data)
        for i in range(len(document)):
            _render(document, i, 300)
        pdfium_s = (time.perf_counter() - started) / len(document)
        document.close()
        started = time.perf_counter()
        reader = PdfReader(io.BytesIO(data))
        found = 0
        for page in reader.pages:
            for image in page.images:
                image.image.load()
                found += 1
        pypdf_s = (time.perf_counter() - started) / len(reader.pages)
        print(f"| {file_name[:24]} | {pdfium_s:.2f} | {pypdf_s:.2f} | {found} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", nargs="+", default=[e for e in ocr.ENGINES if ocr.engine_installed(e)])
    parser.add_argument("--dpi", nargs="+", type=int, default=[150, 300])
    parser.add_argument("--corpus-dpi", nargs="+", type=int, default=[200, 300])
    args = parser.parse_args()
    if not args.engines:
        sys.exit("no OCR engine installed: apt-get install tesseract-ocr tesseract-ocr-eng, or pip install 'ragwire[ocr]'")
    started = time.perf_counter()
    render_choice()
    synthetic(args.engines, args.dpi)
    corpus(args.engines, args.corpus_dpi)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
