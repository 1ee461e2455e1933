"""What the collection holds, per source: the documents list of a web page or an admin tool.

Read with one scroll over the readable chunks' metadata (no vectors), so a listing of a
few thousand documents costs tens of milliseconds, not a search per document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..store.filters import known_fields
from ..store.records import payload_metadata, payload_text, source_filter
from ..store.scope import scope_key

if TYPE_CHECKING:
    from ..store import Collection
    from ..store.filters import Filter

_PAGE = 2048


@dataclass
class DocumentInfo:
    """One stored source: where it came from, how it was cut, when it was ingested.

    ``pages`` is the page count of paged formats (PDF, PPTX) and None otherwise;
    ``metadata_status`` is the LLM metadata step's outcome (``ok``, ``failed``,
    ``skipped``); ``ocr`` is True when any chunk was read by OCR, None when the loader
    does not record it; ``path`` is the file on this machine it was read from (None for
    S3), which may have changed or gone since.
    """

    source: str
    file_name: str
    file_type: str
    chunks: int
    pages: int | None = None
    metadata_status: str | None = None
    ocr: bool | None = None
    ingested_at: str | None = None
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict."""
        return asdict(self)


def _scroll_metadata(coll: Collection, flt: Filter | None = None) -> list[tuple[str | None, dict[str, Any], str]]:
    out: list[tuple[str | None, dict[str, Any], str]] = []
    offset = None
    while True:
        records, offset = coll.scroll(flt, limit=_PAGE, offset=offset)
        for record in records:
            payload = record.payload
            out.append((record.id, payload_metadata(payload), payload_text(payload)))
        if offset is None or not records:
            return out


def local_path(source: str, place: object = None) -> str | None:
    """The file a source was read from on this machine: the source itself when it is a path,
    ``<sync_place>/<relative>`` for a named local source (``local://name/relative``), else None.

    A relative part that climbs out of its folder (``..``) gives None: the path comes from
    stored metadata, and is only ever a file under the folder the sync read.
    """
    if source.startswith("local://"):
        relative = source[len("local://"):].partition("/")[2]
        if not place or not relative:
            return None
        root = PurePosixPath(str(place))
        parts = PurePosixPath(relative).parts
        if ".." in parts or PurePosixPath(relative).is_absolute():
            return None
        return str(root.joinpath(*parts))
    if "://" in source or not source.startswith("/") and not (len(source) > 2 and source[1] == ":"):
        return None
    return source


def list_documents(coll: Collection) -> list[DocumentInfo]:
    """Every source with a readable version, sorted by file name then source."""
    found: dict[str, DocumentInfo] = {}
    for _id, meta, _text in _scroll_metadata(coll):
        source = str(meta.get("source") or "")
        info = found.get(source)
        if info is None:
            info = found[source] = DocumentInfo(
                source=source, file_name=str(meta.get("file_name") or source), file_type=str(meta.get("file_type") or ""),
                chunks=0, pages=meta.get("page_total") or meta.get("page_count"),
                metadata_status=meta.get("metadata_status"), ingested_at=meta.get("created_at"),
                path=local_path(source, meta.get("sync_place")))
        info.chunks += 1
        if "ocr" in meta:
            info.ocr = bool(info.ocr) or bool(meta["ocr"])
        if meta.get("metadata_status") == "failed":
            info.metadata_status = "failed"  # one failed chunk makes the document's metadata incomplete
        created = meta.get("created_at")
        if created and (info.ingested_at is None or str(created) > str(info.ingested_at)):
            info.ingested_at = created
    return sorted(found.values(), key=lambda d: (d.file_name.lower(), d.source))


def document_chunks(coll: Collection, source: str) -> list[dict[str, Any]]:
    """The readable chunks of ``source`` in reading order: ``{"id", "text", "metadata"}`` each."""
    rows = _scroll_metadata(coll, source_filter(source))
    rows.sort(key=lambda row: (int(row[1].get("chunk_index") or 0), str(row[0])))
    return [{"id": str(chunk_id), "text": text, "metadata": meta} for chunk_id, meta, text in rows]


def field_names(coll: Collection) -> set[str]:
    """The metadata fields of the chunks the reader may see (call with the collection open).

    Unrestricted: the indexes (every field a document brought) and one chunk.  A restricted
    reader's are read from its own chunks (up to a limit): the indexes name fields of
    documents it may not read.
    """
    if scope_key() is None:
        return set(known_fields(coll.indexes())) | set(coll.sample_metadata())
    from .search import stored_fields

    return set(stored_fields(coll, set())[0])


__all__ = ["DocumentInfo", "document_chunks", "field_names", "list_documents"]
