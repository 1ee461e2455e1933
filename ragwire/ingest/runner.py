"""Ingest runs: plan (skip / replace) → prepare in parallel → embed in batches → write in input order.

Writes are sequential and applied in input order, so stats and logs do not
depend on which worker finishes first.  Each file is written ``pending`` and
made visible in one flip once all its chunks are stored (see store.collection).
"""

from __future__ import annotations

import contextvars
import functools
import sys
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

from ..errors import IngestAborted, ProviderError, RagwireError, StoreError, StoreFullError, StoreLockedError, one_line
from ..loaders.guard import set_progress_listener
from ..logs import REPORTED, get_logger
from ..pacing import in_turns
from ..providers.retry import call_with_retries
from ..store import Collection, index_debt
from .items import IngestItem, as_item, source_id
from .plan import Planned, plan
from .prepare import Prepared, make_loader, prepare_file
from .settings import IngestSettings
from .stats import FileOutcome, IngestStats
from .write import write_document

if TYPE_CHECKING:
    from ..metadata.service import Hook
    from ..stages import Embedder, SparseEmbedder
__all__ = ["IngestItem", "IngestRunner", "source_id"]

log = get_logger(__name__)
T = TypeVar("T")



class _Abort(Exception):
    """A failure that belongs to the run (not to one file): stop, keep what is written."""


class IngestRunner:
    """Runs one ingest over a list of paths against an open collection."""

    def __init__(
        self,
        collection: Collection,
        embedding: Embedder,
        sparse: SparseEmbedder | None,
        settings: IngestSettings,
        extract_metadata: Hook | None = None,
        progress: bool | None = None,
    ) -> None:
        self.collection = collection
        self.embedding = embedding
        self.sparse = sparse
        self.settings = settings
        self.extract_metadata = extract_metadata
        self.progress = sys.stderr.isatty() if progress is None else progress
        self._bar: Any = None
        self._model_ready = False

    def _store_call(self, fn: Callable[..., T], *args: object) -> T:
        """A store read or repair the run depends on: retried, and a lasting failure stops the run."""
        ing = self.settings.ingestion
        try:
            return call_with_retries(fn, *args, retries=ing.retries, backoff=ing.retry_backoff, what="store access")
        except (StoreError, ProviderError) as exc:
            raise _Abort(str(exc)) from exc

    # -- the run ----------------------------------------------------------
    def run(self, paths: Iterable[str | Path | IngestItem], force: bool = False,
            on_file: Callable[[FileOutcome], None] | None = None) -> IngestStats:
        """Ingest ``paths``; returns the typed stats (``on_file`` is told each file's outcome as it is recorded).

        A plain path is stored under :func:`source_id`; an :class:`IngestItem` under its own ``source``.
        The run holds the collection's writer lease throughout (:meth:`Collection.writing`), so
        the pending chunks it finds belong to runs that are over and are safe to clean up.

        Raises:
            StoreLockedError: another run kept writing the collection past ``vectorstore.write_wait_s``.
            IngestAborted: a failure of the run itself (the store stayed unreachable,
                the embedding model could not load); its ``stats`` hold what was done.
        """
        items = [as_item(p) for p in paths]
        stats = IngestStats(total=len(items), on_file=on_file)
        self._bar = self._make_bar(len(items))
        try:
            with self.collection.writing():
                self._run(items, force, stats)
        except _Abort as exc:
            stats.aborted = str(exc)
            raise IngestAborted(
                f"ingest stopped after {len(stats.outcomes)} of {stats.total} files: {exc}", stats.to_dict()
            ) from exc
        finally:
            set_progress_listener(None)
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
        self._ready: deque[Prepared | Planned] = deque()
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
            planned = plan(paths, self.collection, self.settings, force, self._store_call)

            def submit_next() -> bool:
                item = next(planned, None)
                if item is None:
                    return False
                if isinstance(item, Planned):
                    done: Future = Future()
                    done.set_result(item)
                    queue.append(done)
                else:
                    # In the caller's context, so a traced run's extraction spans are its children.
                    queue.append(pool.submit(
                        contextvars.copy_context().run, prepare_file, item,
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
                    if isinstance(item, Prepared):
                        stats.count_extraction(item.metadata_usage)
                    self._accept(item)
                    self._embed(final=False)
                    self._drain(stats, run_id)
                self._embed(final=True)
                self._drain(stats, run_id)
            except _Abort:
                for future in queue:
                    future.cancel()
                # Files prepared but never reached still made their extraction calls.
                for future in queue:
                    if not future.cancelled() and future.exception() is None:
                        done = future.result()
                        if isinstance(done, Prepared):
                            stats.count_extraction(done.metadata_usage)
                raise
        self._build_index()

    def _build_index(self) -> None:
        """Build the vector index after a large write, or one a serving process left owed (:mod:`ragwire.store.index_debt`)."""
        due = bool(self._written_points) and self._written_points >= self.settings.optimize_after_points
        if not due and not index_debt.owed(self.collection):
            return
        if index_debt.build(self.collection):
            log.info("built the vector index after writing %d points", self._written_points)
        elif due and index_debt.owed(self.collection):
            log.info("vector index not rebuilt while serving (every read would wait for the build); "
                     "the next ingest or sync run with no server running builds it")

    def _make_bar(self, total: int):
        from tqdm import tqdm

        bar = tqdm(total=total, unit="file", desc="ingest", disable=not self.progress, leave=False)
        if self.progress:  # a long scan's pages show on the bar
            set_progress_listener(lambda text: bar.set_postfix_str(text))
        return bar

    def _accept(self, item: Prepared | Planned) -> None:
        """Queue a planned or prepared file; its chunks without reusable vectors await embedding."""
        self._ready.append(item)
        if not isinstance(item, Prepared) or item.error:
            return
        if item.replacing:
            # Read only the stored vectors this file's chunks can use, one file at a time,
            # so memory stays bounded however many changed files are planned.
            wanted = {chunk.metadata["content_hash"] for chunk in item.chunks}
            item.reuse = self._store_call(functools.partial(
                self.collection.stored_vectors, item.source, wanted,
                vectors_fingerprint=self.settings.vectors_fingerprint,
            ))
        missing = 0
        for ci, chunk in enumerate(item.chunks):
            reused = item.reuse.get(chunk.metadata["content_hash"])
            if reused is not None and (self.sparse is None or reused[1] is not None):
                self._vectors[(item.index, ci)] = reused
            else:
                self._todo.append((item, ci, chunk.text))
                missing += 1
        self._missing[item.index] = missing

    def _drain(self, stats: IngestStats, run_id: str) -> None:
        """Write or record every file at the head of the queue that is ready, in input order."""
        while self._ready:
            head = self._ready[0]
            if isinstance(head, Prepared) and not head.error and self._missing.get(head.index, 0):
                return
            self._ready.popleft()
            if isinstance(head, Planned):
                if head.kind == "skipped":
                    stats.record(FileOutcome(str(head.path), "skipped", head.reason))
                    log.debug("%s: skipped (%s)", head.path.name, head.reason)
                else:
                    self._fail(head, head.reason, stats)
            elif head.error:
                self._fail(head, head.error, stats)
            else:
                try:
                    vectors = [self._vectors[(head.index, ci)] for ci in range(len(head.chunks))]
                    stats.record(write_document(self.collection, self.settings, head, vectors, run_id))
                    self._written_points += len(head.chunks)
                except RagwireError as exc:
                    # The store stayed unreachable after retries, or the lease lapsed and another
                    # run writes now: every later file would fail too, so the run stops.
                    if isinstance(exc, (StoreLockedError, StoreFullError)) or exc.retryable:
                        raise _Abort(str(exc)) from exc
                    head.fail(f"{head.path.name}: {one_line(exc)}", exc)
                    self._fail(head, head.error or "", stats)
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
    def _fail(doc: Prepared | Planned, message: str, stats: IngestStats) -> None:
        outcome = FileOutcome(str(doc.path), "failed", message, getattr(doc, "error_type", ""),
                              getattr(doc, "retryable", False))
        if isinstance(doc, Prepared):
            outcome.metadata_usage = doc.metadata_usage
        stats.record(outcome)
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
                raise _Abort(one_line(exc)) from exc
        self._model_ready = True

    def _encode(self, texts: list[str]) -> tuple[list[list[float]], list[Any]]:
        ing = self.settings.ingestion
        dense: list[list[float]] = []
        sparse: list[Any] = []
        try:
            # A read answered in this process meanwhile gets the cores first (ragwire.pacing).
            for turn in in_turns(texts):
                part = call_with_retries(self.embedding.embed_documents, list(turn), retries=ing.retries,
                                         backoff=ing.retry_backoff, what="embedding")
                if len(part) != len(turn):
                    raise ProviderError(f"embedding returned {len(part)} vectors for {len(turn)} texts")
                dense.extend(part)
                if self.sparse is not None:
                    sparse.extend(tuple(v) for v in self.sparse.embed_documents(list(turn)))
                else:
                    sparse.extend([None] * len(turn))
        except RagwireError:
            raise
        except Exception as exc:
            # A local model's own failure (a RuntimeError from torch, say) is this batch's
            # problem: the caller retries file by file so the others still go in.
            raise ProviderError(f"embedding failed: {type(exc).__name__}: {one_line(exc)}") from exc
        return dense, sparse

    def _store_vectors(self, part: list[tuple[Prepared, int, str]], dense, sparse) -> None:
        for (doc, ci, _), dv, sv in zip(part, dense, sparse, strict=True):
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
                self._drop(docs[0], f"{docs[0].path.name}: {batch_error}", batch_error)
                return
        # Isolate the failing file(s): the others in the batch still go in.
        for doc in docs:
            mine = [entry for entry in part if entry[0] is doc]
            try:
                self._store_vectors(mine, *self._encode([t for _, _, t in mine]))
            except ProviderError as exc:
                self._drop(doc, f"{doc.path.name}: {exc}", exc)

    def _drop(self, doc: Prepared, message: str, exc: BaseException) -> None:
        doc.fail(message, exc)
        self._missing[doc.index] = 0
        self._todo = [entry for entry in self._todo if entry[0] is not doc]
