"""The names of the metadata fields ragwire writes itself, in one place.

Every floor reads them from here: the store (which fields get no payload index),
metadata (which names a schema may not take), the facade (which fields are never
offered as filters), retrieval (a hit's score fields) and MCP (which fields an agent
is not shown).  Imports nothing from ragwire.
"""

from __future__ import annotations

# What a search adds to a chunk's metadata in the Documents ``retrieve`` returns.
SCORE_FIELDS = ("score", "score_type", "score_max", "rerank_score")

# Where a chunk sits in its file: page fields from the loader and splitter, the heading path.
LOCATION_FIELDS = ("heading_path", "page_number", "page_total", "page_label", "page_end", "page_starts")

# How a chunk's text was read from a scan (loaders.scan): filterable, e.g. ``{"ocr": True}``.
OCR_FIELDS = ("ocr", "ocr_engine", "ocr_confidence", "ocr_rotation")

# How a chunk was stored, not what it says: hashes, ids, positions, timestamps, sync state,
# the access labels (ragwire.access: who may read it).
BOOKKEEPING_FIELDS = frozenset({
    "content_hash", "chunk_hash", "chunk_id", "chunk_index", "total_chunks", "file_hash",
    "created_at", "metadata_status", "sync_source", "sync_place", "access",
})

# Every field ragwire writes itself: never offered as a filter field, never a schema field.
# File properties (title, author, year, language, ...) are not here: an LLM field of the
# same name wins over them.
SYSTEM_FIELDS = frozenset({
    "source", "file_name", "file_type", *BOOKKEEPING_FIELDS, *LOCATION_FIELDS, *SCORE_FIELDS, *OCR_FIELDS,
})

# Stored with every chunk but never given a payload index (unique per chunk): still filterable.
UNINDEXED_FIELDS = ("content_hash", "chunk_id", "chunk_hash")

# ragwire's own fields that its reads match exactly (a file's chunks, sync ownership): indexed as stored.
MATCHED_FIELDS = frozenset({"source", "file_hash", "file_name", "chunk_index", "sync_source", "sync_place",
                            "access"})

# ragwire's own fields given no payload index.  Each index costs every open of an embedded
# store a few milliseconds (a cold query's store went from 37 indexes to 17), nobody filters
# a large collection on a page label or a timestamp, and a filter on one still works: the
# search reads the chunks for it.  The OCR fields stay indexed: they are documented filters.
SCANNED_FIELDS = frozenset(LOCATION_FIELDS) | (BOOKKEEPING_FIELDS - MATCHED_FIELDS)
