"""Reading one page image with an OCR engine, upright and legible, in as few engine runs as it takes.

A page is levelled (deskewed) and read once.  Only when that read is poor does anything
else run: a page read with low confidence is turned upright (Tesseract's orientation
detection, or each quarter turn for an engine without one) and read again; a page where
little or nothing was read is cleaned up as a photo (see :mod:`ragwire.loaders.pageimage`)
and read again.  The best read is kept, with the rotation that gave it.  A clean scan costs
one engine run per page; a blank page costs none.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragwire.loaders import pageimage

if TYPE_CHECKING:
    from PIL.Image import Image

    from ragwire.loaders.ocr import OcrEngine, OcrText

logger = logging.getLogger(__name__)

# A read whose mean word confidence is at least this is good: no retry.  Upright clean scans
# read at 0.85-0.95; a page on its side reads as garbage at about 0.4 (measured, bench/ocr_bench.py).
GOOD_CONFIDENCE = 0.7
# A page kept under this confidence after the retries is reported (file, page, confidence).
LOW_CONFIDENCE = 0.6
_WORD = re.compile(r"\w{2,}")


@dataclass(frozen=True)
class Reading:
    """The best read of a page: the engine's text, the quarter turn and deskew applied (degrees,
    counter-clockwise), whether the photo cleanup was used, and how many engine runs it took."""

    found: OcrText
    rotation: int = 0
    skew: float = 0.0
    cleaned: bool = False
    runs: int = 1


def score(found: OcrText) -> float:
    """How much legible text a read holds: the confidence of its confidently read words, summed."""
    return sum(word.confidence for word in found.words if word.confidence >= 0.5 and _WORD.search(word.text))


def is_good(found: OcrText) -> bool:
    return found.confidence is not None and found.confidence >= GOOD_CONFIDENCE and bool(_WORD.search(found.text))


def read_page(engine: OcrEngine, image: Image) -> Reading:
    """The best read of ``image``: levelled, turned upright and cleaned up as each proves needed."""
    skew = pageimage.skew_angle(image)
    level = pageimage.rotated(image, skew) if skew else image
    best = Reading(engine.recognize(level), skew=skew)
    uneven = pageimage.unevenly_lit(level)
    if is_good(best.found) and not uneven:
        return best
    runs = 1
    best_image = level
    if best.found.words and not is_good(best.found):  # words read badly: is the page on its side?
        turns, osd_runs = _turns_to_try(engine, level)
        runs += osd_runs
        for turn in turns:
            turned = pageimage.rotated(level, turn)
            found = engine.recognize(turned)
            runs += 1
            if score(found) > score(best.found):
                best, best_image = Reading(found, turn, skew), turned
            if is_good(found):
                break
    if uneven or not is_good(best.found):  # a photo, a shaded or faint scan: clean it up
        found = engine.recognize(pageimage.cleaned_photo(best_image))
        runs += 1
        if score(found) > score(best.found):
            best = Reading(found, best.rotation, skew, cleaned=True)
    return Reading(best.found, best.rotation, best.skew, best.cleaned, runs)


def _turns_to_try(engine: OcrEngine, image: Image) -> tuple[list[int], int]:
    """The quarter turns (counter-clockwise) worth a read, and how many engine runs finding them took."""
    detect = getattr(engine, "orientation", None)
    if detect is None:
        return [90, 270, 180], 0
    turn = detect(image)
    if turn is None:  # too little text for orientation detection: try each
        return [90, 270, 180], 1
    # Its guess first; the others only if that read is no better (the loop stops at a good read).
    return [turn, *(other for other in (90, 270, 180) if other != turn)] if turn else [], 1
