"""Office files (DOCX, PPTX, XLSX) are ZIP archives: check one before a converter unpacks it.

The checks read only the archive's central directory (sizes as recorded there), so
a zip bomb is refused without inflating a byte of it.  Converters unpack with
Python's zipfile, which stops each member at its recorded size, so those
recorded sizes are what they would really inflate.
"""

from __future__ import annotations

import io
import zipfile

from ragwire.errors import LoaderError

ZIP_FORMATS = (".docx", ".pptx", ".xlsx", ".xlsm")

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# Small parts (styles, settings, empty sheets) compress 40:1 and more in ordinary files;
# only a member this large unpacked can exhaust memory, so only these have their ratio checked.
RATIO_MIN_MEMBER_BYTES = 2**20
_MAX_SHOWN_NAME = 60


def check_office(
    data: bytes, name: str, ext: str, *, max_uncompressed_mb: float, max_compression_ratio: float
) -> None:
    """Refuse a DOCX/PPTX/XLSX that is not a ZIP, or that would unpack to too much.

    Args:
        data: The file's bytes.
        name: The file name, for messages.
        ext: Its lowercase extension; other formats are not checked.
        max_uncompressed_mb: Limit on the total unpacked size of all members (MiB).
        max_compression_ratio: Limit on unpacked / packed size of any member above 1 MiB unpacked.

    Raises:
        LoaderError: password-protected or old binary Office file, not a ZIP, or over a limit
            (the message names the figure, the limit and the config key to raise).
    """
    if ext not in ZIP_FORMATS:
        return
    if data.startswith(_OLE_MAGIC):
        raise LoaderError(
            f"{name}: password-protected or old binary Office file — remove the password or re-save it as {ext}"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise LoaderError(
            f"{name}: not a valid {ext} file (not a ZIP archive) — re-save it from its application"
        ) from exc
    for member in members:
        if member.file_size <= RATIO_MIN_MEMBER_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > max_compression_ratio:
            raise LoaderError(
                f"{name}: part {_shown(member.filename)} unpacks {ratio:,.0f} times its packed size"
                f" ({_mb(member.compress_size)} MB → {_mb(member.file_size)} MB), over the"
                f" limit of {max_compression_ratio:g} (loader.max_compression_ratio) — a zip bomb, or raise"
                " loader.max_compression_ratio if you trust the file"
            )
    total = sum(member.file_size for member in members)
    if total > max_uncompressed_mb * 2**20:
        raise LoaderError(
            f"{name}: unpacks to {_mb(total)} MB, over the {max_uncompressed_mb:g} MB limit"
            " (loader.max_uncompressed_mb) — a zip bomb, or raise loader.max_uncompressed_mb if you trust the file"
        )


def _mb(size: int) -> str:
    """Bytes as MiB, with two decimals below 1 MiB so a small figure does not read 0.0."""
    return f"{size / 2**20:,.1f}" if size >= 2**20 else f"{size / 2**20:.2f}"


def _shown(filename: str) -> str:
    """A member name fit for a one-line message (names are attacker-chosen: no newlines, bounded)."""
    text = " ".join(filename.split()) or "(unnamed)"
    return text if len(text) <= _MAX_SHOWN_NAME else text[: _MAX_SHOWN_NAME - 1] + "…"
