"""Document properties that need no LLM: title, author, dates, page count and language.

Read from the file's own metadata (PDF document info, the Office ``docProps`` parts)
and from its already extracted text.  Runs after the loader succeeded, so it never
raises: whatever cannot be read is simply left out.
"""

from __future__ import annotations

import logging
import re
import zipfile
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ragwire.metadata.language import detect_language

logger = logging.getLogger(__name__)

MAX_TITLE_CHARS = 300
#: A plain-text first line longer than this is a paragraph, not a title.
MAX_FIRST_LINE_TITLE = 120
# docProps parts are a few KiB; anything far larger is not worth parsing.
_MAX_PART_BYTES = 2**20
_OFFICE_TYPES = frozenset({"docx", "pptx", "xlsx", "xlsm"})
# Converted spreadsheets and CSV get "## Sheet1"-style headings that are not titles.
_NO_HEADING_TITLE = frozenset({"xlsx", "xlsm", "csv"})
_PLAIN_TEXT_TYPES = frozenset({"txt"})

_NS = {
    "cp": "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "ep": "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
}
_SLIDE = re.compile(r"ppt/slides/slide\d+\.xml")
# "D:20240912103000+02'00'" — every field after the year is optional.
_PDF_DATE = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"\s*(?:(Z)|([+-])(\d{2})'?(?:(\d{2})'?)?)?"
)
_APP_PREFIX = re.compile(r"^Microsoft (?:Word|PowerPoint|Excel) - ", re.IGNORECASE)
_DOC_EXTENSION = re.compile(r"\.(?:docx?|pptx?|xlsx?|xlsm|rtf|odt|txt)$", re.IGNORECASE)
# Placeholder titles that authoring tools write when the author set none.
_JUNK_TITLE = re.compile(
    r"^(?:untitled(?:[ -]?\d+)?|untitled document|document\d*|presentation\d*|book\d*|"
    r"powerpoint presentation|slide \d+|title|no title|unknown|none|null|\(anonymous\))$",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_MIN_YEAR, _MAX_YEAR = 1900, 2200


def file_properties(path: Path, text: str, file_type: str) -> dict[str, Any]:
    """The properties of one document that can be read without an LLM.

    Args:
        path: The file (already loaded successfully; its size and ZIP limits were checked).
        text: The text the loader extracted from it.
        file_type: Its type as the loader reports it (``"pdf"``; a leading dot is allowed).

    Returns:
        Only the keys that could be determined, of ``title`` (str), ``author`` (str),
        ``created`` and ``modified`` (``"YYYY-MM-DDTHH:MM:SSZ"``, UTC), ``year`` (int),
        ``page_count`` (int) and ``language`` (ISO 639-1 code).  Never raises.
    """
    kind = (file_type or Path(path).suffix).lower().lstrip(".")
    props: dict[str, Any] = {}
    try:
        if kind == "pdf":
            props.update(_pdf_properties(Path(path)))
        elif kind in _OFFICE_TYPES:
            props.update(_office_properties(Path(path), kind))
    except Exception as exc:  # noqa: BLE001 — the text is already extracted; a bad property must not fail the file
        logger.debug("%s: could not read document properties (%s: %s)", Path(path).name, type(exc).__name__, exc)
        props = {}
    try:
        props.update(_text_properties(text or "", kind, has_title="title" in props))
    except Exception as exc:  # noqa: BLE001 — same: properties are optional
        logger.debug("%s: could not derive properties from text (%s: %s)", Path(path).name, type(exc).__name__, exc)
    year_source = props.get("created") or props.get("modified")
    if year_source:
        props["year"] = int(year_source[:4])
    return props


def _text_properties(text: str, kind: str, *, has_title: bool) -> dict[str, Any]:
    props: dict[str, Any] = {}
    if not has_title:
        title = None
        if kind not in _NO_HEADING_TITLE:
            title = _first_heading(text)
        if title is None and kind in _PLAIN_TEXT_TYPES:
            title = _first_line_title(text)
        if title:
            props["title"] = title
    language = detect_language(text)
    if language:
        props["language"] = language
    return props


def _pdf_properties(path: Path) -> dict[str, Any]:
    from pypdf import PdfReader

    props: dict[str, Any] = {}
    # An open file, not bytes: pypdf then reads only the trailer, the info dictionary
    # and the page tree, however large the PDF is.
    with path.open("rb") as fh:
        reader = PdfReader(fh)
        if reader.is_encrypted and not reader.decrypt(""):
            logger.debug("%s: encrypted PDF; properties not read", path.name)
            return props
        info: Any = reader.metadata or {}
        for key, field in (("/Title", "title"), ("/Author", "author")):
            value = _clean(_pdf_text(info, key))
            if field == "title":
                value = _usable_title(value)
            if value:
                props[field] = value
        for key, field in (("/CreationDate", "created"), ("/ModDate", "modified")):
            stamp = _pdf_date(_pdf_text(info, key))
            if stamp:
                props[field] = stamp
        try:
            pages = len(reader.pages)
        except Exception as exc:  # noqa: BLE001 — a broken page tree loses only the count
            logger.debug("%s: page count unreadable (%s)", path.name, exc)
        else:
            if pages > 0:
                props["page_count"] = pages
    return props


def _pdf_text(info: Mapping[str, object], key: str) -> str | None:
    try:
        if key not in info:
            return None
        value = info[key]
        value = value.get_object() if hasattr(value, "get_object") else value
    except Exception as exc:  # noqa: BLE001 — a dangling reference in the info dictionary
        logger.debug("PDF info %s unreadable (%s)", key, exc)
        return None
    return str(value) if isinstance(value, str) else None


def _pdf_date(raw: str | None) -> str | None:
    """``D:20240912103000+02'00'`` (or any prefix of it, ``D:2024``) as UTC ISO 8601."""
    if not raw:
        return None
    match = _PDF_DATE.match(raw.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, zulu, sign, off_h, off_m = match.groups()
    try:
        stamp = datetime(
            int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0), int(second or 0),
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None
    if sign and not zulu:
        offset = timedelta(hours=int(off_h), minutes=int(off_m or 0))
        stamp = stamp - offset if sign == "+" else stamp + offset
    return _iso(stamp)


def _office_properties(path: Path, kind: str) -> dict[str, Any]:
    props: dict[str, Any] = {}
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        core = _xml_part(archive, names, "docProps/core.xml")
        if core is not None:
            title = _usable_title(_clean(core.findtext("dc:title", namespaces=_NS)))
            if title:
                props["title"] = title
            author = _clean(core.findtext("dc:creator", namespaces=_NS))
            if author:
                props["author"] = author
            for tag, field in (("dcterms:created", "created"), ("dcterms:modified", "modified")):
                stamp = _w3c_date(core.findtext(tag, namespaces=_NS))
                if stamp:
                    props[field] = stamp
        if kind == "pptx":
            slides = sum(1 for name in names if _SLIDE.fullmatch(name))
            if slides:
                props["page_count"] = slides
        elif kind == "docx":
            app = _xml_part(archive, names, "docProps/app.xml")
            pages = _positive_int(app.findtext("ep:Pages", namespaces=_NS)) if app is not None else None
            if pages:
                props["page_count"] = pages
    return props


def _xml_part(archive: zipfile.ZipFile, names: set[str], name: str) -> ElementTree.Element | None:
    """A small XML part of an Office file, parsed; ``None`` when missing, oversized or malformed."""
    if name not in names:
        return None
    try:
        with archive.open(name) as member:
            data = member.read(_MAX_PART_BYTES + 1)
        if len(data) > _MAX_PART_BYTES or b"<!DOCTYPE" in data.upper():
            # Real docProps parts never declare a DOCTYPE; one would only serve entity tricks.
            logger.debug("%s: oversized or DOCTYPE-bearing part ignored", name)
            return None
        return ElementTree.fromstring(data)
    except (ElementTree.ParseError, zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
        # RuntimeError: an encrypted member; the others: damage in the archive or the XML.
        logger.debug("%s: unreadable (%s)", name, exc)
        return None


def _w3c_date(raw: str | None) -> str | None:
    """``2023-04-15T12:00:00Z`` / ``…+02:00`` / ``2023-04-15`` as UTC ISO 8601; naive means UTC."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        stamp = datetime.fromisoformat(raw)
    except ValueError:
        return None
    stamp = stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None else stamp.astimezone(timezone.utc)
    return _iso(stamp)


def _iso(stamp: datetime) -> str | None:
    # Years outside this range are placeholders (Office's 1601, zeroed fields), not dates.
    if not _MIN_YEAR <= stamp.year <= _MAX_YEAR:
        return None
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def _positive_int(raw: str | None) -> int | None:
    try:
        value = int((raw or "").strip())
    except ValueError:
        return None
    return value if value > 0 else None


def _first_heading(text: str) -> str | None:
    """The first ATX Markdown heading (``# Title``, ``## …``) outside code fences."""
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _HEADING.match(line)
        if match:
            title = _clean(match.group(1))
            if title:
                return title
    return None


def _first_line_title(text: str) -> str | None:
    """A short first line set off by a blank line, as plain-text documents start with a title."""
    lines = text.lstrip("\ufeff\r\n \t").splitlines()
    if len(lines) < 3 or lines[1].strip() or not any(line.strip() for line in lines[2:]):
        return None
    first = _clean(lines[0])
    return first if first and len(first) <= MAX_FIRST_LINE_TITLE else None


def _usable_title(title: str | None) -> str | None:
    """A metadata title, minus the "Microsoft Word - x.docx" wrapping; ``None`` for placeholders."""
    if not title:
        return None
    stripped = _APP_PREFIX.sub("", title)
    if stripped != title:
        stripped = _DOC_EXTENSION.sub("", stripped).strip()
    if not stripped or _JUNK_TITLE.match(stripped) or not any(ch.isalnum() for ch in stripped):
        return None
    return stripped


def _clean(value: str | None) -> str | None:
    """Collapse whitespace, drop control characters, and cap the length."""
    if not value:
        return None
    text = " ".join("".join(ch if ch.isprintable() else " " for ch in value).split())
    if len(text) > MAX_TITLE_CHARS:
        text = text[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return text or None
