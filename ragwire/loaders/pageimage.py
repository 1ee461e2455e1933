"""Page images made legible before OCR: blank pages spotted, skew measured, photos cleaned up.

Pillow and numpy only, on the page image the loader already holds.  What each step is
worth was measured with ``bench/ocr_bench.py --legibility`` (see docs/loading.md): deskew
and the photo cleanup (grayscale, contrast stretch, adaptive threshold, upscaling small
pages) are kept because they turned misread or "blank" pages into read ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

# Pixels at a quarter of the page's size at least this much darker than the page's median
# are ink; a page with fewer than _MIN_INK such pixels is blank (scanner dust stays under it:
# a one-pixel speck darkens its 4x4 box by a sixteenth).
_INK_DROP = 48
_MIN_INK = 20
# Skew is looked for within ±_MAX_SKEW degrees, on a copy this wide at most; a tilt under
# _MIN_SKEW degrees is left alone (Tesseract copes), and one whose line profile is not clearly
# sharper than the upright one's (_SHARPER) is noise, not skew.
_MAX_SKEW = 10.0
_MIN_SKEW = 1.0
_SKEW_WIDTH = 500
_SHARPER = 1.25
# Photos whose shorter side is under this many pixels are enlarged 2x: small text is what
# the engine misreads most.
_SMALL_SIDE = 1200
# The adaptive threshold: ink is this much darker than its neighbourhood's mean (measured:
# 12 let noise through on a dark photo, 20 read all three test photos).
_THRESHOLD_DROP = 20
# Paper brightness (a cell's 90th percentile) varying by more than this across the page is a
# shadow or a gradient; a scanner lights a page evenly (within ~10).
_UNEVEN = 50


def _gray(image: Image) -> Image:
    return image if image.mode == "L" else image.convert("L")


def is_blank(image: Image) -> bool:
    """Whether the page holds no ink at all (an empty scanned page): not worth an engine run."""
    import numpy as np

    gray = _gray(image)
    small = gray.reduce(4) if min(gray.size) >= 64 else gray
    pixels = np.asarray(small, dtype=np.int16)
    if pixels.size == 0:
        return True
    median = int(np.median(pixels))
    return int((pixels < median - _INK_DROP).sum()) < _MIN_INK


def skew_angle(image: Image) -> float:
    """The angle (degrees, counter-clockwise positive) that levels the page's text lines, or 0.

    Projection profile: the rotation at which the rows' ink counts vary most is the one that
    lines the text up with the rows.
    """
    import numpy as np
    from PIL import Image as PILImage
    from PIL import ImageFilter

    gray = _gray(image)
    scale = min(1.0, _SKEW_WIDTH / max(1, gray.size[0]))
    small = gray.resize((max(1, int(gray.size[0] * scale)), max(1, int(gray.size[1] * scale))),
                        PILImage.Resampling.BILINEAR)
    pixels = np.asarray(small, dtype=np.int16)
    # Ink against its neighbourhood, not the page: a gradient's dark side is not a text line.
    local = np.asarray(small.filter(ImageFilter.BoxBlur(10)), dtype=np.int16)
    ink = PILImage.fromarray(((pixels < local - _THRESHOLD_DROP) * 255).astype(np.uint8))

    def sharpness(angle: float) -> float:
        rows = np.asarray(ink.rotate(angle, resample=PILImage.Resampling.NEAREST), dtype=np.float64).sum(axis=1)
        return float(np.square(np.diff(rows)).sum())

    upright = sharpness(0.0)
    if upright == 0:
        return 0.0
    coarse = max((float(a) for a in range(-int(_MAX_SKEW), int(_MAX_SKEW) + 1, 2)), key=sharpness)
    fine = max((coarse + step / 4 for step in range(-4, 5)), key=sharpness)
    if abs(fine) < _MIN_SKEW or sharpness(fine) < upright * _SHARPER:
        return 0.0
    return round(fine, 1)


def rotated(image: Image, degrees: float) -> Image:
    """``image`` turned ``degrees`` counter-clockwise, the corners it gains filled with paper white."""
    from PIL import Image as PILImage

    if degrees % 90 == 0:
        turns = {90: PILImage.Transpose.ROTATE_90, 180: PILImage.Transpose.ROTATE_180,
                 270: PILImage.Transpose.ROTATE_270}
        turn = turns.get(int(degrees) % 360)
        return image.transpose(turn) if turn is not None else image
    white = 255 if image.mode in ("L", "1") else (255, 255, 255)
    return image.rotate(degrees, resample=PILImage.Resampling.BICUBIC, expand=True, fillcolor=white)


def cleaned_photo(image: Image) -> Image:
    """A photo or a shaded scan as black text on white: grayscale, contrast stretched, small text
    enlarged, then an adaptive threshold (each pixel against its neighbourhood's mean), which
    removes a gradient or a shadow that a single threshold cannot."""
    import numpy as np
    from PIL import Image as PILImage
    from PIL import ImageFilter, ImageOps

    gray = ImageOps.autocontrast(_gray(image), cutoff=1)
    if min(gray.size) < _SMALL_SIDE:
        gray = gray.resize((gray.size[0] * 2, gray.size[1] * 2), PILImage.Resampling.LANCZOS)
    gray = gray.filter(ImageFilter.GaussianBlur(1.5))  # sensor noise would pass the threshold as specks
    radius = max(8, min(gray.size) // 40)  # wider than a stroke, narrower than a shadow
    local = np.asarray(gray.filter(ImageFilter.BoxBlur(radius)), dtype=np.int16)
    pixels = np.asarray(gray, dtype=np.int16)
    return PILImage.fromarray(np.where(pixels < local - _THRESHOLD_DROP, 0, 255).astype(np.uint8))


def unevenly_lit(image: Image) -> bool:
    """Whether the paper is much darker in some part of the page than in another (a photo's shadow
    or gradient): there the engine's single threshold loses the text of the darker part."""
    import numpy as np

    gray = _gray(image)
    pixels = np.asarray(gray.reduce(4) if min(gray.size) >= 64 else gray, dtype=np.int16)
    rows, cols = pixels.shape
    cells = [pixels[r * rows // 4:(r + 1) * rows // 4, c * cols // 4:(c + 1) * cols // 4] for r in range(4)
             for c in range(4)]
    paper = [float(np.percentile(cell, 90)) for cell in cells if cell.size]
    return bool(paper) and max(paper) - min(paper) > _UNEVEN
