"""Writing one prepared file through one commit (:meth:`ragwire.store.Collection.commit`): its
chunks ``pending`` in batches, made the visible version when the commit ends."""

from __future__ import annotations

from typing import Any

from ..chunk import Chunk
from ..logs import get_logger
from ..providers.retry import call_with_retries
from ..store import Collection, chunk_point_id
from .prepare import Prepared
from .settings import IngestSettings
from .stats import FileOutcome

log = get_logger(__name__)

# Appended to the settings fingerprint of a document stored without its metadata.
METADATA_FAILED = "+metadata-failed"


def write_document(collection: Collection, settings: IngestSettings, doc: Prepared, vectors: list[Any],
                   run_id: str) -> FileOutcome:
    """Write ``doc`` with ``vectors[i]`` = (dense, sparse) of its chunk ``i``; retried, idempotent."""
    records: list[Chunk] = []
    reused = 0
    # Rewriting content that is stored already: fresh ids, so the visible version is
    # never overwritten before the new one is complete.
    salt = run_id if doc.same_content_stored else ""
    for ci, chunk in enumerate(doc.chunks):
        dense, sparse = vectors[ci]
        stored = doc.reuse.get(chunk.book.content_hash or "")
        if stored is not None and stored[0] is dense:
            reused += 1
        records.append(chunk.placed(chunk_point_id(doc.source, doc.file_hash, ci, salt), dense, sparse))
    ing = settings.ingestion

    # Every step is idempotent (fixed ids, filters), so a retried write cannot duplicate.
    def retried(fn, *args, **kwargs):
        return call_with_retries(fn, *args, retries=ing.retries, backoff=ing.retry_backoff,
                                 what="store write", **kwargs)

    # A failed extraction gets a fingerprint no run has, so the next ingest repairs it.
    shaped_by = settings.shaped_by(doc.ocr_shaped) + (METADATA_FAILED if doc.metadata_failed else "")
    fingerprints = {"settings": shaped_by, "vectors": settings.vectors_fingerprint}
    # A rewrite of stored content replaces it, even with replace_changed off.
    with collection.commit(doc.source, run_id, file_hash=doc.file_hash, fingerprints=fingerprints, call=retried,
                           keep_other_versions=not (ing.replace_changed or doc.same_content_stored)) as txn:
        for start in range(0, len(records), ing.batch_size):
            txn.write(records[start:start + ing.batch_size])
    removed = txn.removed
    log.info("%s: %d chunks written%s", doc.path.name, len(records),
             f", {removed} old chunks removed" if removed else "")
    return FileOutcome(
        str(doc.path), "processed", chunks=len(records), embedded=len(records) - reused, reused=reused,
        replaced=doc.replacing and bool(removed or doc.same_content_stored),
        metadata_failed=doc.metadata_failed, metadata_usage=doc.metadata_usage, ocr_doubtful=doc.ocr_doubtful,
    )
