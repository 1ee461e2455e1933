"""One chunk from the splitter to the store: typed location and bookkeeping, ``extra`` for the rest,
one mapping to and from the stored payload, and the hit a stored chunk comes back as."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from ragwire.answer.context import NumberedSource, build_context
from ragwire.chunk import BOOK_FIELDS, Bookkeeping, Chunk, Location
from ragwire.config import LoaderConfig, SplitterConfig
from ragwire.errors import StoreError
from ragwire.fields import LOCATION_FIELDS, OCR_FIELDS, SCORE_FIELDS, SYSTEM_FIELDS
from ragwire.ingest.prepare import Prepared, make_loader, prepare_file
from ragwire.retrieval.hit import Hit
from ragwire.store import Point
from ragwire.store.commits import pending_points
from ragwire.store.records import chunk_of, chunk_payload

# A chunk's metadata as ingestion stores it (values as an ingest of a PDF writes them).
STORED = {
    "title": "Warranty", "year": 2024, "access": ["hr"], "ocr": True,
    "heading_path": "Terms > Returns", "page_number": 3, "page_end": 4, "page_total": 9, "page_starts": [0, 812],
    "source": "/docs/warranty.pdf", "file_name": "warranty.pdf", "file_type": "pdf", "file_hash": "ab12",
    "chunk_id": "ab12_4", "chunk_index": 4, "total_chunks": 11, "content_hash": "c0ffee", "chunk_hash": "d00d",
    "created_at": "2026-12-04T10:00:00Z", "metadata_status": "extracted", "sync_source": "docs",
    "sync_place": "/docs",
}


def test_stored_metadata_splits_into_typed_location_bookkeeping_and_extra_and_back():
    # guards issue 36.1: metadata travelled as one dict[str, Any] from the splitter to the store
    chunk = Chunk.from_metadata("Returns are free for 30 days.", STORED)
    assert chunk.location == Location(heading_path="Terms > Returns", page_number=3, page_end=4, page_total=9,
                                      page_starts=(0, 812))
    assert chunk.book.file_name == "warranty.pdf" and chunk.book.chunk_index == 4
    assert chunk.book.sync_source == "docs" and chunk.book.access == ["hr"]
    assert dict(chunk.extra) == {"title": "Warranty", "year": 2024, "ocr": True}
    assert chunk.metadata == STORED


def test_every_field_ragwire_writes_itself_has_a_typed_home():
    # scores belong to a hit, OCR details to what the loader read: both stay in extra
    written = set(SYSTEM_FIELDS) - set(SCORE_FIELDS) - set(OCR_FIELDS)
    assert written - set(LOCATION_FIELDS) - set(BOOK_FIELDS) == set()


def test_a_chunk_stored_and_read_back_is_the_same_chunk_and_its_hit_carries_it():
    chunk = Chunk.from_metadata("Returns are free for 30 days.", STORED, id="p-1", dense=[0.1, 0.2])
    payload = chunk_payload(chunk)
    assert payload["_ci"]["title"] == "warranty"  # filters match strings through the lower-cased copy
    back = chunk_of(payload, id="p-1")
    assert (back.text, back.location, back.book, dict(back.extra)) == (chunk.text, chunk.location, chunk.book,
                                                                      dict(chunk.extra))
    hit = Hit.from_point(Point("p-1", payload, score=0.7), "cosine")
    assert (hit.text, hit.metadata, hit.id, hit.score) == (chunk.text, STORED, "p-1", 0.7)
    assert (hit.heading_path, hit.page_number, hit.file_name) == ("Terms > Returns", 3, "warranty.pdf")


def test_ingestion_prepares_typed_chunks_from_the_splitters_own(tmp_path: Path):
    path = tmp_path / "guide.md"
    path.write_text("# Guide\n\n## Install\n\nRun the installer and restart the robot.", encoding="utf-8")
    item = Prepared(index=0, path=path, source=str(path), file_hash="f" * 64)
    prepare_file(item, loader=make_loader(LoaderConfig(), "markdown"),
                 splitter=SplitterConfig(strategy="markdown"), dedup_chunks=True)
    assert item.error is None
    [chunk] = item.chunks
    assert isinstance(chunk, Chunk) and chunk.location.heading_path == "Guide > Install"
    assert isinstance(chunk.book, Bookkeeping)
    assert (chunk.book.source, chunk.book.file_type, chunk.book.chunk_index, chunk.book.total_chunks) == (
        str(path), "md", 0, 1)
    assert chunk.book.metadata_status == "skipped" and "title" in chunk.extra


def test_a_chunk_is_written_as_placed_and_a_bare_one_is_refused_naming_the_fix():
    # guards issue 36.1: ChunkRecord went; a chunk without its point id would reach the engine as id None
    chunk = Chunk.from_metadata("Returns are free for 30 days.", STORED)
    [point] = pending_points([chunk.placed("p-1", [0.1, 0.2], None)], "run-1", {"settings": "s1"})
    assert (point.id, point.dense, point.payload["metadata"]) == ("p-1", [0.1, 0.2], STORED)
    assert (point.payload["_state"], point.payload["_settings"]) == ("pending", "s1")
    with pytest.raises(StoreError, match=r"/docs/warranty.pdf has no point id: write chunk.placed"):
        pending_points([chunk], "run-1", {})


def test_a_numbered_source_is_a_view_of_its_hit_not_a_copy_of_the_chunk():
    # issue 36.1 counts the forms a chunk takes: the answer's numbered source adds a number and
    # the text the context budget shows, and reads everything else through the hit itself
    first = Hit("Returns are free for 30 days. " * 10, dict(STORED), score=0.7)
    second = Hit("Shipping takes two days. " * 20, {"source": "/docs/shipping.md"}, score=0.5)
    whole, cut = build_context([first, second], len(first.text) + 250)
    assert (whole.index, whole.hit, whole.text, whole.truncated) == (1, first, first.text, False)
    assert cut.hit is second and cut.truncated and second.text.startswith(cut.text) and len(cut.text) == 250
    assert {f.name for f in fields(NumberedSource)} == {"index", "text", "hit", "truncated"}
    assert not hasattr(whole, "metadata")  # metadata and scores are the hit's, never copied
