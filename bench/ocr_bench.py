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
    nice -n 10 python bench/ocr_bench.py --one-pass --dpi 300   # load alone against a whole ingest
    nice -n 10 python bench/ocr_bench.py --legibility           # turned, tilted, photographed pages
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


def one_pass(dpi: int, count: int = 3) -> None:
    """Seconds per page of a scanned PDF: loading alone (PageMapLoader) and a whole ingest (default
    markdown splitter, embedding and writing included), with the tesseract runs counted."""
    import os
    import shutil
    import tempfile

    import yaml

    from ragwire import RAGWire
    from ragwire.loaders.ocr import OcrSettings
    from ragwire.loaders.page_loader import PageMapLoader

    print(f"\n## One pass: a {count}-page scan at {dpi} dpi, seconds per page")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "runs.log"
        wrapper = folder / "bin" / "tesseract"
        wrapper.parent.mkdir()
        wrapper.write_text(f'#!/bin/sh\ncase "$*" in *--list-langs*) ;; *) echo x >> {log} ;; esac\n'
                           f'exec {shutil.which("tesseract")} "$@"\n')
        wrapper.chmod(0o755)
        os.environ["PATH"] = f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"
        images = [text_page(dpi, [("sans", 11, PROSE), ("serif", 10, PROSE)])[0] for _ in range(count)]
        scan = folder / "scan.pdf"
        images[0].save(scan, save_all=True, append_images=images[1:], resolution=dpi)
        runs = lambda: len(log.read_text().splitlines()) if log.exists() else 0  # noqa: E731
        started = time.perf_counter()
        assert PageMapLoader(ocr=OcrSettings.choose("tesseract", dpi=dpi)).load(scan)["success"]
        load_s, load_runs = (time.perf_counter() - started) / count, runs()
        config = folder / "config.yaml"
        config.write_text(yaml.safe_dump({
            "loader": {"ocr": "tesseract", "ocr_dpi": dpi},
            "embeddings": {"provider": "huggingface", "model_name": "sentence-transformers/all-MiniLM-L6-v2"},
            "vectorstore": {"path": str(folder / "store"), "collection_name": "bench"},
        }))
        rag = RAGWire(str(config))
        # Loading the embedding model (~19 s of imports here) and creating the store are once per
        # process, not a page's cost: a one-line text file pays for them first.
        warm = folder / "warm.txt"
        warm.write_text("A note about the pumping station.")
        assert rag.ingest_documents([warm])["processed"] == 1
        started = time.perf_counter()
        stats = rag.ingest_documents([scan])
        ingest_s, ingest_runs = (time.perf_counter() - started) / count, runs() - load_runs
        assert stats["processed"] == 1, stats
        print("| | s/page | tesseract runs |\n|---|---|---|")
        print(f"| load alone | {load_s:.2f} | {load_runs} |\n| whole ingest | {ingest_s:.2f} | {ingest_runs} |")
        print(f"ingest / load = {ingest_s / load_s:.2f}")


ANIMALS = ("pelican", "walrus", "heron", "otter", "badger", "falcon", "lynx", "marten", "osprey", "bison",
           "ibex", "puffin", "stoat")


def legibility_pages() -> dict[str, tuple[Image.Image, str]]:
    """13 pages, each with its own fact ("pelican 5521"): turned, tilted, photographed, and one clean."""
    import numpy as np

    def page(fact: str) -> Image.Image:
        lines = ["The quarterly maintenance report covers the pumping", "station on Harbour Road. Inspectors found",
                 "corrosion on valve 17 and recommended a new gasket.", f"The secret code of the warehouse is {fact}."]
        image = Image.new("L", (1240, 400), 255)
        draw = ImageDraw.Draw(image)
        for i, line in enumerate(lines):
            draw.text((60, 100 + i * 50), line, font=ImageFont.truetype(FONTS["sans"], 28), fill=0)
        return image

    def photo(fact: str, kind: str, seed: int) -> Image.Image:
        width, height = 900, 500
        x, y = np.linspace(0, 1, width)[None, :], np.linspace(0, 1, height)[:, None]
        paper = {"gradient": 250 - 200 * (x + y) / 2, "shadow": 230 - 150 * np.exp(-((x - .3) ** 2 + (y - .4) ** 2) / .05),
                 "dim": 120 + 60 * x + 0 * y}[kind]
        mask = Image.new("L", (width, height), 0)
        ImageDraw.Draw(mask).text((40, 180), f"The secret code of the warehouse is {fact}.",
                                  font=ImageFont.truetype(FONTS["sans"], 20), fill=255)
        ink = np.asarray(mask) / 255.0
        noise = np.random.default_rng(seed).normal(0, 8, (height, width))
        pixels = paper * (1 - ink) + paper * 0.35 * ink + noise
        return Image.fromarray(pixels.clip(0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.8))

    labels = [f"turned {t}°" for t in (90, 180, 270)] + [f"tilted {a}°" for a in (5, -5, 3)]
    labels += [f"photo {k} {s}" for k in ("gradient", "shadow", "dim") for s in (1, 2)] + ["clean"]
    cases = {}
    for number, (label, animal) in enumerate(zip(labels, ANIMALS, strict=True)):
        fact = f"{animal} {5521 + 111 * number}"
        if label.startswith("turned"):
            image = page(fact).rotate(int(label.split()[1].rstrip("°")), expand=True)
        elif label.startswith("tilted"):
            image = page(fact).rotate(int(label.split()[1].rstrip("°")), expand=True, fillcolor=255)
        elif label.startswith("photo"):
            image = photo(fact, label.split()[1], int(label.split()[2]))
        else:
            image = page(fact)
        cases[label] = (image, fact)
    return cases


def legibility() -> None:
    """Facts found on turned, tilted and photographed pages: the engine's plain read against the
    loader's, then hit@5 of a whole ingest of the 13 pages (a query for each page's fact)."""
    import tempfile

    import yaml

    from ragwire import RAGWire

    cases = legibility_pages()
    try:
        from ragwire.loaders import legible
    except ImportError:  # code from before the loader's read was made legible: hit@5 only
        legible = None  # type: ignore[assignment]
    if legible is not None:
        engine = make_engine("tesseract", 150)
        print("\n## Legibility: is the fact in the text? (tesseract, 150 dpi)")
        print("| page | plain read | s | loader's read | s | engine runs | turn / skew / cleaned |")
        print("|---|---|---|---|---|---|---|")
        found_plain = found_now = 0
        for label, (image, fact) in cases.items():
            plain, plain_s = timed(engine, image)
            started = time.perf_counter()
            reading = legible.read_page(engine, image)
            now_s = time.perf_counter() - started
            hit_plain, hit_now = fact in " ".join(plain.text.split()), fact in " ".join(reading.found.text.split())
            found_plain += hit_plain
            found_now += hit_now
            print(f"| {label} | {'found' if hit_plain else 'missed'} | {plain_s:.2f} | {'found' if hit_now else 'missed'}"
                  f" | {now_s:.2f} | {reading.runs} | {reading.rotation} / {reading.skew} / {reading.cleaned} |",
                  flush=True)
        print(f"facts found: plain {found_plain}/{len(cases)}, loader {found_now}/{len(cases)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "images"
        folder.mkdir()
        names = {}
        for number, (label, (image, _)) in enumerate(cases.items()):
            names[label] = f"page-{number:02d}.png"
            image.save(folder / names[label])
        config = Path(tmp) / "config.yaml"
        config.write_text(yaml.safe_dump({
            "loader": {"ocr": "tesseract", "ocr_dpi": 150, "extensions": [".png"]},
            "embeddings": {"provider": "huggingface", "model_name": "sentence-transformers/all-MiniLM-L6-v2"},
            "vectorstore": {"path": str(Path(tmp) / "store"), "collection_name": "bench"},
        }))
        rag = RAGWire(str(config))
        stats = rag.ingest_directory(folder)
        hits = 0
        print(f"\n## hit@5 after ingesting the {len(cases)} pages ({stats['processed']} processed, {stats['failed']} failed)")
        for label, (_, fact) in cases.items():
            found = [doc.metadata["file_name"] for doc in rag.retrieve(f"secret code {fact}", top_k=5)]
            hits += names[label] in found
            print(f"| {label} | {'hit' if names[label] in found else 'miss'} |")
        print(f"hit@5: {hits}/{len(cases)} = {hits / len(cases):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", nargs="+", default=[e for e in ocr.ENGINES if ocr.engine_installed(e)])
    parser.add_argument("--dpi", nargs="+", type=int, default=[150, 300])
    parser.add_argument("--corpus-dpi", nargs="+", type=int, default=[200, 300])
    parser.add_argument("--one-pass", action="store_true", help="only: load alone against a whole ingest")
    parser.add_argument("--legibility", action="store_true", help="only: turned, tilted and photographed pages")
    args = parser.parse_args()
    if args.one_pass or args.legibility:
        if args.one_pass:
            one_pass(args.dpi[0])
        if args.legibility:
            legibility()
        return
    if not args.engines:
        sys.exit("no OCR engine installed: apt-get install tesseract-ocr tesseract-ocr-eng, or pip install 'ragwire[ocr]'")
    started = time.perf_counter()
    render_choice()
    synthetic(args.engines, args.dpi)
    corpus(args.engines, args.corpus_dpi)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
