"""OCR engines behind one small interface: an image in, its text (with word boxes and confidence) out.

Two offline engines, both shipping their models: **Tesseract** (the Debian binary,
called through its TSV output, which gives word boxes and confidences without a
Python wrapper or temp files) and **RapidOCR** (PP-OCR models on ONNX Runtime, the
``[ocr]`` extra).  Neither is imported or started until a page needs it, and
:func:`resolve_engine` decides which one ``loader.ocr: auto`` means without
importing either (``bench/ocr_bench.py`` measured Tesseract the more accurate on
English scans, so it comes first).
"""

from __future__ import annotations

import functools
import importlib.util
import io
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ragwire.errors import LoaderError

if TYPE_CHECKING:
    from PIL.Image import Image

ENGINES = ("tesseract", "rapidocr")
CHOICES = ("auto", "off", *ENGINES)
TESSERACT_APT = "apt-get install tesseract-ocr tesseract-ocr-eng"
RAPIDOCR_PIP = "pip install 'ragwire[ocr]'"
_INSTALL = {"tesseract": TESSERACT_APT, "rapidocr": RAPIDOCR_PIP}
_OSD = re.compile(r"Rotate: (\d+)\s+Orientation confidence: ([\d.]+)")
# Under this, Tesseract's orientation guess is a coin toss (its own docs suggest about 2).
_MIN_OSD_CONFIDENCE = 2.0


@dataclass(frozen=True)
class OcrWord:
    """One recognised word (Tesseract) or text line (RapidOCR) and where it is, in image pixels."""

    text: str
    confidence: float
    box: tuple[int, int, int, int]  # left, top, width, height


@dataclass(frozen=True)
class OcrText:
    """What an engine read from one image: the text in reading order, and the mean confidence (0–1)."""

    text: str
    confidence: float | None
    words: tuple[OcrWord, ...] = field(default=(), repr=False)


class OcrEngine(Protocol):
    """An OCR engine: ``recognize(image)`` reads one page image."""

    name: str

    def recognize(self, image: Image) -> OcrText: ...


@dataclass(frozen=True)
class OcrSettings:
    """The loader's OCR settings (config ``loader.ocr*``); picklable, so a conversion child gets them.

    ``engine`` is the resolved engine, or ``None`` when OCR is off or no engine is installed
    (``wanted`` then says which it was, for the failure message).  ``max_pages`` and
    ``file_timeout_s`` are one file's OCR budget: pages, and seconds added to its conversion.
    """

    engine: str | None
    languages: tuple[str, ...] = ("eng",)
    dpi: int = 300
    page_timeout_s: float = 60.0
    wanted: str = "auto"
    max_pages: int = 200
    file_timeout_s: float = 1800.0

    @classmethod
    def choose(cls, wanted: str = "auto", languages: tuple[str, ...] | list[str] = ("eng",), dpi: int = 300,
               page_timeout_s: float = 60.0, *, max_pages: int = 200, file_timeout_s: float = 1800.0) -> OcrSettings:
        """The settings for ``loader.ocr: wanted``, with the engine it resolves to on this machine."""
        return cls(resolve_engine(wanted), tuple(languages), dpi, page_timeout_s, wanted, max_pages, file_timeout_s)

    def missing_hint(self) -> str:
        """Why no OCR ran and how to get it, for a page or file that needed it."""
        if self.wanted == "off":
            return f"OCR is off: set loader.ocr: auto, with an engine installed ({TESSERACT_APT}, or {RAPIDOCR_PIP})"
        if self.wanted in _INSTALL:
            return f"loader.ocr: {self.wanted} is not installed — {_INSTALL[self.wanted]}"
        return f"no OCR engine is installed — {TESSERACT_APT}, or {RAPIDOCR_PIP}"

    def identity(self) -> dict[str, Any]:
        """What shapes OCR'd text: part of the settings fingerprint of documents that needed OCR."""
        if self.engine is None:
            return {"engine": None}
        langs = list(self.languages) if self.engine == "tesseract" else None
        return {"engine": self.engine, "languages": langs, "dpi": self.dpi}


def tesseract_binary() -> str | None:
    """The ``tesseract`` executable on PATH, or ``None``."""
    return shutil.which("tesseract")


def rapidocr_installed() -> bool:
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def engine_installed(name: str) -> bool:
    return tesseract_binary() is not None if name == "tesseract" else rapidocr_installed()


def resolve_engine(wanted: str) -> str | None:
    """The engine ``loader.ocr: wanted`` runs here, or ``None`` (off, or not installed); imports nothing."""
    if wanted == "off":
        return None
    candidates = ENGINES if wanted == "auto" else (wanted,)
    return next((name for name in candidates if engine_installed(name)), None)


@functools.cache
def tesseract_languages() -> frozenset[str]:
    """The language packs the installed Tesseract has (empty when it is not installed)."""
    binary = tesseract_binary()
    if binary is None:
        return frozenset()
    try:
        out = subprocess.run([binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = out.stdout.splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip())


def language_package(code: str) -> str:
    """The Debian package holding Tesseract's ``code`` language pack: ``deu`` → ``tesseract-ocr-deu``."""
    return "tesseract-ocr-" + code.lower().replace("_", "-")


def get_engine(settings: OcrSettings) -> OcrEngine:
    """The engine ``settings`` name, ready to read pages (RapidOCR loads its models once per process).

    Raises:
        LoaderError: no engine is available (the message says how to install one).
    """
    if settings.engine == "tesseract":
        return TesseractEngine(settings.languages, settings.dpi, settings.page_timeout_s)
    if settings.engine == "rapidocr":
        return _rapidocr()
    raise LoaderError(settings.missing_hint())


class TesseractEngine:
    """The Tesseract binary, one process per page, its TSV output parsed into lines and words."""

    name = "tesseract"

    def __init__(self, languages: tuple[str, ...] = ("eng",), dpi: int = 300, timeout_s: float = 60.0) -> None:
        binary = tesseract_binary()
        if binary is None:
            raise LoaderError(f"the tesseract binary is not on PATH — {TESSERACT_APT}")
        self.binary = binary
        self.languages = languages
        self.dpi = dpi
        self.timeout_s = timeout_s

    def recognize(self, image: Image) -> OcrText:
        done = self._run(image, ["tsv"])
        if done.returncode != 0:
            detail = " ".join(done.stderr.decode("utf-8", "replace").split())[:160]
            raise LoaderError(f"tesseract failed (exit {done.returncode}: {detail})")
        return parse_tsv(done.stdout.decode("utf-8", "replace"))

    def orientation(self, image: Image) -> int | None:
        """The quarter turn (degrees counter-clockwise) that sets the page upright, by Tesseract's
        orientation detection (``--psm 0``); ``None`` when it cannot tell (too little text)."""
        done = self._run(image, ["--psm", "0"], languages="osd")  # with -l eng it misreads upside-down pages
        if done.returncode != 0:
            return None
        found = _OSD.search(done.stdout.decode("utf-8", "replace"))
        if found is None or float(found.group(2)) < _MIN_OSD_CONFIDENCE:
            return None
        return (360 - int(found.group(1))) % 360  # Tesseract says how far to turn clockwise

    def _run(self, image: Image, arguments: list[str], languages: str = "") -> subprocess.CompletedProcess[bytes]:
        buffer = io.BytesIO()
        # PNM is the cheapest format to write, and leptonica reads it from stdin.
        image.convert("L" if image.mode in ("1", "L", "LA", "P", "I", "I;16", "F") else "RGB").save(buffer, "PPM")
        languages = languages or "+".join(self.languages)
        command = [self.binary, "stdin", "stdout", "-l", languages, "--dpi", str(self.dpi), *arguments]
        try:
            return subprocess.run(command, input=buffer.getvalue(), capture_output=True, timeout=self.timeout_s,
                                  check=False, preexec_fn=_die_with_parent, env={**os.environ, "OMP_THREAD_LIMIT": "1"})
        except subprocess.TimeoutExpired as exc:
            raise LoaderError(f"tesseract took longer than {self.timeout_s:g} s on one page") from exc


def parse_tsv(tsv: str) -> OcrText:
    """Tesseract's TSV (one row per word, numbered by block, paragraph and line) → lines of text."""
    lines: dict[tuple[int, int, int], list[str]] = {}
    words: list[OcrWord] = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        block, par, line = int(cells[2]), int(cells[3]), int(cells[4])
        conf = float(cells[10])
        text = cells[11].strip()
        lines.setdefault((block, par, line), []).append(text)
        if conf >= 0:
            box = (int(cells[6]), int(cells[7]), int(cells[8]), int(cells[9]))
            words.append(OcrWord(text, conf / 100, box))
    out: list[str] = []
    previous: tuple[int, int] | None = None
    for (block, par, _), line_words in lines.items():
        if previous is not None and previous != (block, par):
            out.append("")  # a blank line between paragraphs
        out.append(" ".join(line_words))
        previous = (block, par)
    confidence = sum(w.confidence for w in words) / len(words) if words else None
    return OcrText("\n".join(out).strip(), confidence, tuple(words))


def _die_with_parent() -> None:
    """In the tesseract process: die when the conversion child is killed for its time limit."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass


class RapidOcrEngine:
    """RapidOCR (PP-OCRv4 detection + recognition on ONNX Runtime); its text lines joined by rows."""

    name = "rapidocr"

    def __init__(self) -> None:
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:
            raise LoaderError(f"RapidOCR is not installed — {RAPIDOCR_PIP}") from exc
        self._ocr = RapidOCR()

    def recognize(self, image: Image) -> OcrText:
        import numpy as np

        result, _ = self._ocr(np.asarray(image.convert("RGB")))
        words = []
        for points, text, score in result or ():
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            box = (int(min(xs)), int(min(ys)), int(max(xs) - min(xs)), int(max(ys) - min(ys)))
            if str(text).strip():
                words.append(OcrWord(str(text).strip(), float(score), box))
        text = "\n".join(" ".join(w.text for w in row) for row in _rows(words))
        confidence = sum(w.confidence for w in words) / len(words) if words else None
        return OcrText(text, confidence, tuple(words))


def _rows(words: list[OcrWord]) -> list[list[OcrWord]]:
    """Group text boxes into rows (a box whose middle lies within the row's height), left to right."""
    rows: list[list[OcrWord]] = []
    for word in sorted(words, key=lambda w: w.box[1] + w.box[3] / 2):
        middle = word.box[1] + word.box[3] / 2
        last = rows[-1][-1] if rows else None
        if last is not None and last.box[1] <= middle <= last.box[1] + last.box[3]:
            rows[-1].append(word)
        else:
            rows.append([word])
    return [sorted(row, key=lambda w: w.box[0]) for row in rows]


@functools.cache
def _rapidocr() -> RapidOcrEngine:
    # Once per process: in ingest that is the conversion child, which never shares the
    # ONNX Runtime session with the parent (a session does not survive a fork).
    return RapidOcrEngine()
