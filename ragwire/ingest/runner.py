"""Ingest runs: plan (skip / replace) → prepare in parallel → embed in batches → write in input order.

Writes are sequential and applied in input order, so stats and logs do not
depend on which worker finishes first.  Each file is written ``pending`` and
made visible in one flip once all its chunks are stored (see store.collection).
"""

from __future__ import annotations

import os
import sys
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import IngestAborted, ProviderError, RagwireError, StoreError, StoreFullError, StoreLockedError
from ..hashing import sha256_file_from_path
from ..logs import REPORTED, get_logger
from ..providers.retry import call_with_retries
from ..store import OWNER_FIELDS, ChunkRecord, Collection, chunk_point_id
from .prepare import Prepared, make_loader, prepare_file
from .settings import IngestSettings
from .stats import FileOutcome, IngestStats

log = get_logger(__name__)

# Files whose stored state is read in one query while planning.
_PLAN_WINDOW = 256
# Appended to the settings fingerprint of a document stored without its metadata.
METADATA_FAILED = "+metadata-failed"


def source_id(path: str | Path) -> str:
    """The identity a local file is stored under: its absolute, normalised path."""
    return os.path.normpath(os.path.abspath(os.path.expanduser(str(path))))


@dataclass(frozen=True)
class IngestItem:
    """A file to ingest under an identity chosen by the caller (sync stores files
    under their source's name, not the machine's path), with extra chunk metadata."""

    path: Path
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)


def _as_item(entry: str | Path | IngestItem) -> IngestItem:
    if isinstance(entry, IngestItem):
        return entry
    return IngestItem(Path(entry), source_id(entry))


class _Outcome:
    """A planned file that needs no preparation (skipped or failed before loading)."""

    def __init__(self, index: int, path: Path, kind: str, reason: str = "") -> None:
        self.index = index
        self.path = path
        self.kind = kind
        self.reason = reason


class _Abort(Exception):
    """A failure that belongs to the run (not to one file): stop, keep what is written."""


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] if text else type(exc).__name__


class IngestRunner:
    """Runs one ingest over a list of paths against an open collection."""

    def __init__(
        self,
        collection: Collection,
        embedding: Any,
        sparse: Any | None,
        settings: IngestSettings,
        extract_metadata: Callable[[str], tuple[dict[str, Any], bool]] | None = None,
        progress: bool | None = None,
    ) -> None:
        self.collection = collection
        self.embedding = embedding
        self.sparse = sparse
        self.settings = settings
        self.extract_metadata = extract_metadata
        self.progress = sys.stderr.isatty() if progress is None else progress
        self._bar = None
        self._model_ready = False

    # -- planning (main thread; reads the store) --------------------------
    def _plan(self, paths: list[IngestItem], force: bool) -> Iterator[Prepared | _Outcome]:
        """Decide per file: skip, fail early, or prepare.  Store state is read for
        ``_PLAN_WINDOW`` files at a time, so an unchanged corpus costs few queries."""
        seen: set[str] = set()
        for start in range(0, len(paths), _PLAN_WINDOW):
            decided: list[Prepared | _Outcome] = []
            window: list[tuple[int, Path, str, str]] = []
            for index in range(start, min(start + _PLAN_WINDOW, len(paths))):
                path, source = paths[index].path, paths[index].source
                if source in seen:
                    decided.append(_Outcome(index, path, "skipped", "listed twice in this run"))
                    continue
                seen.add(source)
                if not path.is_file():
                    decided.append(_Outcome(index, path, "failed", f"{path.name}: file not found at {source}"))
                    continue
                try:
                    window.append((index, path, source, sha256_file_from_path(path)))
                except OSError as exc:
                    reason = f"{path.name}: cannot read ({exc.strerror or exc})"
                    decided.append(_Outcome(index, path, "failed", reason))
            states = self._store_call(self.collection.source_states, [source for _, _, source, _ in window])
            for index, path, source, file_hash in window:
                state = states[source]
                metadata = paths[index].metadata
                if not any(name in metadata for name in OWNER_FIELDS) and state.owner:
                    # A hand ingest or a forced rewrite of a synced document keeps its owner,
                    # so the sync that owns it still deletes it once its file is gone.
                    metadata = {**state.owner, **metadata}
                if not force and state.is_current(file_hash, self.settings.fingerprint):
                    owner = {name: metadata[name] for name in OWNER_FIELDS if name in metadata}
                    if any(state.owner.get(name) != value for name, value in owner.items()):
                        # Unchanged content, new owner (a source renamed, a hand-ingested file
                        # now listed by a sync): recorded without re-embedding.
                        self._store_call(self.collection.set_owner, source, owner)
                        log.info("%s: now owned by sync source %s", path.name, owner.get("sync_source"))
                    if state.pending:
                        # Unfinished chunks of an interrupted run: never visible, now gone.
                        self._store_call(self.collection.discard_pending, source)
                    if self.settings.ingestion.replace_changed and len(state.complete) > 1:
                        removed = self._store_call(self.collection.remove_other_versions, source, file_hash)
                        log.info("%s: removed %d chunks of older versions", path.name, removed)
                    decided.append(_Outcome(index, path, "skipped", "unchanged"))
                    continue
                if not force and state.has_complete(file_hash):
                    log.info("%s: stored with other settings or without its metadata; re-processing", path.name)
                item = Prepared(index=index, path=path, source=source, file_hash=file_hash,
                                extra_metadata=metadata)
                item.replacing = bool(state.complete)
                item.same_content_stored = file_hash in state.complete
                decided.append(item)
            # Outcomes go out in input order, so stats and logs never depend on timing.
            yield from sorted(decided, key=lambda d: d.index)

    def _store_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A store read or repair the run depends on: retried, and a lasting failure stops the run."""
        ing = self.settings.ingestion
        try:
            return call_with_retries(fn, *args, retries=ing.retries, backoff=ing.retry_backoff,
                                     what="store access", **kwargs)
        except (StoreError, ProviderError) as exc:
            raise _Abort(str(exc)) from exc

    # -- the run ----------------------------------------------------------
    def run(self, paths: Iterable[str | Path | IngestItem], force: bool = False) -> IngestStats:
        """Ingest ``paths``; returns the typed stats.

        A plain path is stored under :func:`source_id`; an :class:`IngestItem` under its own ``source``.
        The run holds the collection's writer lease throughout (:meth:`Collection.writing`), so
        the pending chunks it finds belong to runs that are over and are safe to clean up.

        Raises:
            StoreLockedError: another run kept writing the collection past its ``write_wait_s``.
            IngestAborted: a failure of the run itself (the store stayed unreachable,
                the embedding model could not load); its ``stats`` hold what was done.
        """
        items = [_as_item(p) for p in paths]
        stats = IngestStats(total=len(items))
        self._bar = self._make_bar(len(items))
        try:
            with self.collection.writing():
                self._run(items, force, stats)
        except _Abort as exc:
            stats.aborted = str(exc)
            log.error("ingest stopped after %d of %d files: %s", len(stats.outcomes), stats.total, exc)
            raise IngestAborted(
                f"ingest stopped after {len(stats.outcomes)} of {stats.total} files: {exc}", stats.to_dict()
            ) from exc
        finally:
            self._bar.close()
        log.info(
            "ingest: %d files, %d processed, %d skipped, %d failed, %d chunks (%d embedded, %d reused)",
            stats.total, stats.processed, stats.skipped, stats.failed,
            stats.chunks_created, stats.embedded_chunks, stats.reused_chunks, extra=REPORTED,
        )
        return stats

    def _run(self, paths: list[IngestItem], force: bool, stats: IngestStats) -> None:
        run_id = uuid.uuid4().hex
        self._written_points = 0
        # Files wait here, in input order, until every chunk has its vectors.
        self._ready: deque[Prepared | _Outcome] = deque()
        self._todo: list[tuple[Prepared, int, str]] = []
        self._vectors: dict[tuple[int, int], tuple[Any, Any]] = {}
        self._missing: dict[int, int] = {}
        self._inflight: deque[tuple[list[tuple[Prepared, int, str]], Future]] = deque()
        self._slots = max(1, self.settings.embed_concurrency)
        workers = self.settings.ingestion.workers
        window = max(2 * workers, 2)
        loader = make_loader(self.settings.loader, self.settings.splitter.strategy)
        if paths:
            # A run killed between making a version visible and removing the old one
            # left a note; finish that cleanup first (cost: one query when there is none).
            repaired = self._store_call(self.collection.repair_interrupted_commits)
            if repaired:
                log.info("finished the cleanup of %d interrupted replacements", repaired)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragwire-prep") as pool, \
                ThreadPoolExecutor(max_workers=self._slots, thread_name_prefix="ragwire-embed") as embed_pool:
            self._embed_pool = embed_pool
            queue: deque[Future] = deque()
            planned = self._plan(paths, force)

            def submit_next() -> bool:
                item = next(planned, None)
                if item is None:
                    return False
                if isinstance(item, _Outcome):
                    done: Future = Future()
                    done.set_result(item)
                    queue.append(done)
                else:
                    queue.append(pool.submit(
                        prepare_file, item,
                        loader=loader,
                        splitter=self.settings.splitter,
                        dedup_chunks=self.settings.ingestion.dedup_chunks,
                        extract_metadata=self.extract_metadata,
                    ))
                return True

            try:
                while len(queue) < window and submit_next():
                    pass
                while queue:
                    item = queue.popleft().result()
                    submit_next()
                    self._accept(item)
                    self._embed(final=False)
                    self._drain(stats, run_id)
                self._embed(final=True)
                self._drain(stats, run_id)
            except _Abort:
                for future in queue:
                    future.cancel()
                raise
        if self._written_points and self._written_points >= self.settings.optimize_after_points:
            if self.collection.engine.optimize():
                log.info("built the vector index after writing %d points", self._written_points)

    def _make_bar(self, total: int):
        from tqdm import tqdm

        return tqdm(total=total, unit="file", desc="ingest", disable=not self.progress, leave=False)

    def _accept(self, item: Prepared | _Outcome) -> None:
        """Queue a planned or prepared file; its chunks without reusable vectors await embedding."""
        self._ready.append(item)
        if not isinstance(item, Prepared) or item.error:
            return
        if item.replacing:
            # Read only the stored vectors this file's chunks can use, one file at a time,
            # so memory stays bounded however many changed files are planned.
            wanted = {meta["content_hash"] for _, meta in item.chunks}
            item.reuse = self._store_call(
                self.collection.stored_vectors, item.source, wanted,
                vectors_fingerprint=self.settings.vectors_fingerprint,
            )
        missing = 0
        for ci, (text, meta) in enumerate(item.chunks):
            reused = item.reuse.get(meta["content_hash"])
            if reused is not None and (self.sparse is None or reused[1] is not None):
                self._vectors[(item.index, ci)] = reused
            else:
                self._todo.append((item, ci, text))
                missing += 1
        self._missing[item.index] = missing

    def _drain(self, stats: IngestStats, run_id: str) -> None:
        """Write or record every file at the head of the queue that is ready, in input order."""
        while self._ready:
            head = self._ready[0]
            if isinstance(head, Prepared) and not head.error and self._missing.get(head.index, 0):
                return
            self._ready.popleft()
            if isinstance(head, _Outcome):
                if head.kind == "skipped":
                    stats.record(FileOutcome(str(head.path), "skipped", head.reason))
                    log.debug("%s: skipped (%s)", head.path.name, head.reason)
                else:
                    self._fail(head, head.reason, stats)
            elif head.error:
                self._fail(head, head.error, stats)
            else:
                try:
                    stats.record(self._write(head, run_id))
                except RagwireError as exc:
                    # The store stayed unreachable after retries, or the lease lapsed and another
                    # run writes now: every later file would fail too, so the run stops.
                    if isinstance(exc, (StoreLockedError, StoreFullError)) or getattr(exc, "retryable", False):
                        raise _Abort(str(exc)) from exc
                    self._fail(head, f"{head.path.name}: {_one_line(exc)}", stats)
                    self._discard_quietly(head)
                for ci in range(len(head.chunks)):
                    self._vectors.pop((head.index, ci), None)
                head.reuse = {}
            self._missing.pop(getattr(head, "index", -1), None)
            if self._bar is not None:
                self._bar.update(1)
                self._bar.set_postfix(chunks=stats.chunks_created, refresh=False)

    def _discard_quietly(self, doc: Prepared) -> None:
        """Best effort: drop a failed file's pending chunks now (the next run would anyway)."""
        try:
            self.collection.discard_pending(doc.source)
        except RagwireError as exc:
            log.debug("%s: pending chunks left for the next run (%s)", doc.path.name, exc)

    @staticmethod
    def _fail(doc: Prepared | _Outcome, message: str, stats: IngestStats) -> None:
        stats.record(FileOutcome(str(doc.path), "failed", message))
        log.warning("%s", message, extra=REPORTED)

    # -- embedding across documents ----------------------------------------
    def _ensure_model(self) -> None:
        """Load the embedding model in the main thread before the first batch: a model
        that cannot load is the run's failure, not one batch's."""
        if self._model_ready:
            return
        load = getattr(self.embedding, "load", None)
        if load is not None:
            try:
                load()
            except RagwireError as exc:
                raise _Abort(_one_line(exc)) from exc
        self._model_ready = True

    def _encode(self, texts: list[str]) -> tuple[list[list[float]], list[Any]]:
        ing = self.settings.ingestion
        try:
            dense = call_with_retries(self.embedding.embed_documents, texts, retries=ing.retries,
                                      backoff=ing.retry_backoff, what="embedding")
            if len(dense) != len(texts):
                raise ProviderError(f"embedding returned {len(dense)} vectors for {len(texts)} texts")
            sparse: list[Any] = [None] * len(texts)
            if self.sparse is not None:
                sparse = [tuple(v) for v in self.sparse.embed_documents(texts)]
        except RagwireError:
            raise
        except Exception as exc:
            # A local model's own failure (a RuntimeError from torch, say) is this batch's
            # problem: the caller retries file by file so the others still go in.
            raise ProviderError(f"embedding failed: {type(exc).__name__}: {_one_line(exc)}") from exc
        return dense, sparse

    def _store_vectors(self, part: list[tuple[Prepared, int, str]], dense, sparse) -> None:
        for (doc, ci, _), dv, sv in zip(part, dense, sparse):
            if doc.error:  # dropped after another of its batches failed
                continue
            self._vectors[(doc.index, ci)] = (dv, sv)
            self._missing[doc.index] -= 1

    def _embed(self, final: bool) -> None:
        """Send full batches of ``batch_size`` chunks, across files, to the embedding thread(s).

        At most ``embed_concurrency`` batches are in flight; the rest of the
        pipeline (planning, preparing, writing earlier files) runs meanwhile.
        A partial batch waits for more chunks unless ``final``.
        """
        size = self.settings.ingestion.batch_size
        while len(self._todo) >= size or (final and self._todo):
            self._ensure_model()
            part, self._todo = self._todo[:size], self._todo[size:]
            while len(self._inflight) >= self._slots:
                self._collect_oldest()
            self._inflight.append((part, self._embed_pool.submit(self._encode, [t for _, _, t in part])))
        self._collect(block=final)

    def _collect(self, block: bool) -> None:
        while self._inflight and (block or self._inflight[0][1].done()):
            self._collect_oldest()

    def _collect_oldest(self) -> None:
        part, future = self._inflight.popleft()
        try:
            self._store_vectors(part, *future.result())
            return
        except ProviderError as batch_error:
            docs = [d for d in {d.index: d for d, _, _ in part}.values() if not d.error]
            if len(docs) == 1:
                self._drop(docs[0], f"{docs[0].path.name}: {batch_error}")
                return
        # Isolate the failing file(s): the others in the batch still go in.
        for doc in docs:
            mine = [entry for entry in part if entry[0] is doc]
            try:
                self._store_vectors(mine, *self._encode([t for _, _, t in mine]))
            except ProviderError as exc:
                self._drop(doc, f"{doc.path.name}: {exc}")

    def _drop(self, doc: Prepared, message: str) -> None:
        doc.error = message
        self._missing[doc.index] = 0
        self._todo = [entry for entry in self._todo if entry[0] is not doc]

    # -- writing, in input order --------------------------------------------
    def _write(self, doc: Prepared, run_id: str) -> FileOutcome:
        records = []
        reused = 0
        # Rewriting content that is stored already: fresh ids, so the visible version is
        # never overwritten before the new one is complete.
        salt = run_id if doc.same_content_stored else ""
        for ci, (text, meta) in enumerate(doc.chunks):
            dense, sparse = self._vectors[(doc.index, ci)]
            if doc.reuse.get(meta["content_hash"]) is not None and doc.reuse[meta["content_hash"]][0] is dense:
                reused += 1
            records.append(ChunkRecord(chunk_point_id(doc.source, doc.file_hash, ci, salt), text, meta, dense, sparse))
        ing = self.settings.ingestion

        # Every step is idempotent (fixed ids, filters), so a retried write cannot duplicate.
        def retried(fn, *args, **kwargs):
            return call_with_retries(fn, *args, retries=ing.retries, backoff=ing.retry_backoff,
                                     what="store write", **kwargs)

        # A failed extraction gets a fingerprint no run has, so the next ingest repairs it.
        settings = self.settings.fingerprint + (METADATA_FAILED if doc.metadata_failed else "")
        fingerprints = {"settings": settings, "vectors": self.settings.vectors_fingerprint}
        retried(self.collection.discard_pending, doc.source)
        retried(self.collection.ensure_indexes, [r.metadata for r in records])
        for start in range(0, len(records), ing.batch_size):
            retried(self.collection.write_pending, records[start:start + ing.batch_size], run_id,
                    fingerprints=fingerprints)
        # A rewrite of stored content replaces it, even with replace_changed off.
        removed = retried(self.collection.commit_source, doc.source, doc.file_hash, run_id,
                          keep_other_versions=not (ing.replace_changed or doc.same_content_stored))
        self._written_points += len(records)
        log.info("%s: %d chunks written%s", doc.path.name, len(records),
                 f", {removed} old chunks removed" if removed else "")
        return FileOutcome(
            str(doc.path), "processed", chunks=len(records), embedded=len(records) - reused, reused=reused,
            replaced=doc.replacing and bool(removed or doc.same_content_stored),
            metadata_failed=doc.metadata_failed,
        )
