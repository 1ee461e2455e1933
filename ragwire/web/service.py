"""What the HTTP API does, over the public :class:`~ragwire.RAGWire` API.

Reads (questions, searches, the documents list, page images) run at once, beside
whatever is being written: the store shows them committed versions only.  Writes
(uploads, deletes, ``--sync-every`` and runs handed over by the CLI) are jobs of one
:class:`~ragwire.server.jobs.Writer`, one at a time, in order; a route answers with the
job's id and ``GET /api/jobs/{id}`` shows its progress per file.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Iterator, Mapping

from ragwire import RAGWire
from ragwire.errors import IngestAborted, NotFoundError, RagwireError
from ragwire.loaders import SUPPORTED_EXTENSIONS
from ragwire.server.jobs import FileOutcome, Job, Writer

from .uploads import UploadRefused, check_upload_folder, clean_name, free_name, write_new, write_replacing

log = logging.getLogger(__name__)

DEFAULT_MAX_UPLOAD_MB = 20.0

__all__ = ["DEFAULT_MAX_UPLOAD_MB", "Service", "UploadRefused"]


class Service:
    """The pipeline behind the API: reads at once, writes as jobs of one writer, and the upload rules.

    Args:
        rag: The pipeline.
        upload_dir: Folder uploads are written to and ingested from; None turns uploads off.
        max_upload_mb: The largest file an upload may carry.
        upload_into_sources: Allow ``upload_dir`` to overlap a local folder the config syncs.

    Raises:
        ServerError: ``upload_dir`` overlaps a synced folder and ``upload_into_sources`` is false.
    """

    def __init__(self, rag: RAGWire, *, upload_dir: str | Path | None = None,
                 max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB, upload_into_sources: bool = False) -> None:
        self.rag = rag
        self.upload_dir = Path(upload_dir).resolve() if upload_dir is not None else None
        if self.upload_dir is not None:
            check_upload_folder(self.upload_dir, rag.config.sources, allowed=upload_into_sources)
        self.max_upload_bytes = int(max_upload_mb * 2**20)
        self.extensions = tuple(SUPPORTED_EXTENSIONS)
        self.writer = Writer()
        self._stop = threading.Event()

    # -- answers and search ----------------------------------------------------------
    def query(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
              refine: bool | None = None) -> dict[str, Any]:
        """``Answer.to_dict()`` of the question."""
        return _for_web(self.rag.query(question, top_k=top_k, filters=filters or None, refine=refine).to_dict())

    def query_stream(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     refine: bool | None = None) -> Iterator[str | dict[str, Any]]:
        """The answer's text pieces, then its ``to_dict()``.

        A refined answer (``refine``, or ``generation.refine`` when None) is one piece.
        """
        for piece in self.rag.query_stream(question, top_k=top_k, filters=filters or None, refine=refine):
            yield piece if isinstance(piece, str) else _for_web(piece.to_dict())

    def chat(self, messages: list[dict[str, str]], top_k: int | None = None,
             filters: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``Answer.to_dict()`` of the conversation's last user turn (a follow-up is rewritten first: RAGWire.chat)."""
        return _for_web(self.rag.chat(messages, top_k=top_k, filters=filters or None).to_dict())

    def chat_stream(self, messages: list[dict[str, str]], top_k: int | None = None,
                    filters: Mapping[str, Any] | None = None) -> Iterator[str | dict[str, Any]]:
        """:meth:`chat`'s answer in text pieces as the model writes them, then its ``to_dict()``."""
        for piece in self.rag.chat_stream(messages, top_k=top_k, filters=filters or None):
            yield piece if isinstance(piece, str) else _for_web(piece.to_dict())

    def retrieve(self, query: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                 search_type: str | None = None) -> list[dict[str, Any]]:
        """Ranked chunks, each with its location and a score a person can read."""
        from ragwire.retrieval.hit import Hit

        documents = self.rag.retrieve(query, top_k=top_k, filters=filters or None, search_type=search_type)
        results = []
        for rank, document in enumerate(documents, 1):
            hit = Hit.from_document(document)
            results.append({
                "rank": rank, "text": hit.text, "source": hit.source, "file_name": hit.file_name,
                "location": hit.location(), "page_number": hit.page_number, "heading_path": hit.heading_path,
                "score": hit.best_score, "score_type": "rerank" if hit.rerank_score is not None else hit.score_type,
                "score_label": hit.score_label(), "metadata": _for_web(_jsonable(hit.metadata)),
            })
        return results

    # -- the collection --------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """The collection's stats, without where the store lies on the server."""
        return {k: v for k, v in _jsonable(self.rag.get_stats()).items() if k != "location"}

    def fields(self, limit: int = 50) -> list[dict[str, Any]]:
        """Each filter field with its stored values, most frequent first."""
        names = list(self.rag.filter_fields)
        values = self.rag.get_field_values(names, limit) if names else {}
        assert isinstance(values, dict)
        return [{"name": name, "values": _jsonable(values.get(name, []))} for name in names]

    def documents(self) -> list[dict[str, Any]]:
        """Every stored source, without where its file lies on the server."""
        return [{k: v for k, v in doc.items() if k != "path"} for doc in self._documents()]

    def _documents(self) -> list[dict[str, Any]]:
        return [_jsonable(doc.to_dict()) for doc in self.rag.list_documents()]

    def stored(self, source: str) -> dict[str, Any]:
        """The stored document named ``source``; only these may be read or rendered (no path traversal).

        Raises:
            NotFoundError: no stored document has that source.
        """
        for doc in self._documents():
            if doc["source"] == source:
                return doc
        raise NotFoundError(f"{source!r} is not a document of this collection (GET /api/documents lists them)")

    def source(self, source: str) -> dict[str, Any]:
        """The stored document and its chunks in reading order."""
        document = {k: v for k, v in self.stored(source).items() if k != "path"}
        chunks = self.rag.document_chunks(source)
        return {"document": document, "chunks": _for_web(_jsonable(chunks))}

    def page_image(self, source: str, page: int, passage: str) -> Any:
        """A :class:`~ragwire.web.pages.PageImage` of a stored PDF's page, the passage highlighted."""
        from .pages import render_page

        document = self.stored(source)
        if document["file_type"] != "pdf":
            raise RagwireError(f"{document['file_name']} is not a PDF: only PDF pages are drawn")
        path = Path(document["path"]) if document["path"] else None
        if path is None or not path.is_file():
            raise NotFoundError(f"{document['file_name']}: the file is not on this machine (any more): "
                                "only local PDFs are drawn")
        return render_page(path, page, passage, **self._ocr(document))

    def _ocr(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """The OCR engine for the scanned pages of a document read by OCR (the loader's settings); else none."""
        settings = self.rag.config.loader.ocr_settings()
        if not document.get("ocr") or settings.engine is None:
            return {}
        from ragwire.loaders.ocr import get_engine

        return {"ocr": get_engine(settings), "ocr_dpi": settings.dpi}

    # -- writes, as jobs ------------------------------------------------------------
    def delete(self, source: str) -> Job:
        """Queue the delete of a stored source's chunks (``result``: ``{"source", "deleted"}``).

        Raises:
            NotFoundError: no stored document has that source (checked now, not in the job).
        """
        self.stored(source)
        return self.writer.submit("delete", lambda _job: {"source": source,
                                                          "deleted": self.rag.delete_document(source)})

    def job(self, job_id: str) -> dict[str, Any]:
        return self.writer.get(job_id).to_dict()

    # -- uploads ---------------------------------------------------------------------
    def uploads_on(self) -> None:
        """Raises UploadRefused when the server was started without an upload folder."""
        if self.upload_dir is None:
            raise UploadRefused("uploads are off on this server", 403)

    def check_upload(self, name: str, size: int | None) -> str:
        """The file name to write (NFC), once the name, type and size pass.

        Raises:
            UploadRefused: uploads are off, or the name, type or size is refused.
        """
        self.uploads_on()
        base = clean_name(name)
        ext = Path(base).suffix.lower()
        if ext not in self.extensions:
            raise UploadRefused(f"{base}: {ext or 'no extension'} is not a type ragwire reads "
                                f"({', '.join(self.extensions)})", 415)
        if size is not None and size > self.max_upload_bytes:
            raise UploadRefused(f"{base}: {size / 2**20:.1f} MB is over this server's "
                                f"{self.max_upload_bytes / 2**20:g} MB upload limit", 413)
        return base

    def upload(self, files: list[tuple[str, bytes]], refused: list[FileOutcome], *, replace: bool = False) -> Job:
        """Queue writing ``files`` into the upload folder and ingesting them in one run.

        A name already there gets ``name (2).ext`` unless ``replace``; ``refused`` files
        (a bad name, type or size) are listed in the job as failed.  A file that fails to
        ingest is removed again (a replaced one put back), so the folder holds only what
        the collection does.  One run for the request's files, not one each: a run's
        fixed cost (its plan, its flush of the store, which holds the interpreter lock)
        is paid once, so reads beside an upload slow less (bench/server_bench.py).
        """
        assert self.upload_dir is not None
        folder = self.upload_dir
        outcomes = [FileOutcome(name) for name, _ in files]

        def work(job: Job) -> dict[str, Any]:
            folder.mkdir(parents=True, exist_ok=True)
            for group in _runs(list(zip(outcomes, (data for _, data in files), strict=True)), replace):
                self._ingest_uploads(folder, group, replace)
            return {"processed": sum(o.status == "processed" for o in outcomes),
                    "skipped": sum(o.status == "skipped" for o in outcomes),
                    "failed": sum(o.status == "failed" for o in job.files),
                    "chunks_created": sum(o.chunks for o in outcomes)}

        return self.writer.submit("upload", work, files=outcomes + list(refused))

    def _ingest_uploads(self, folder: Path, group: list[tuple[FileOutcome, bytes]], replace: bool) -> None:
        """Write ``group``'s files into ``folder`` and ingest them in one run; each outcome says how its file did."""
        placed: dict[str, tuple[FileOutcome, Path, Path | None]] = {}
        for outcome, data in group:
            try:
                path, kept = write_replacing(folder, outcome.name, data) if replace else (
                    _write_unique(folder, outcome.name, data), None)
            except OSError as exc:
                outcome.status, outcome.reason = "failed", f"cannot write it to the upload folder: {exc.strerror or exc}"
                continue
            outcome.stored_as, outcome.status = path.name, "running"
            placed[str(path)] = (outcome, path, kept)
        self.writer.changed()
        if not placed:
            return

        def told(result: dict[str, Any]) -> None:
            entry = placed.get(str(result["file"]))
            if entry is not None:
                _settle(entry[0], result)
                self.writer.changed()

        try:
            self.rag.ingest_documents(list(placed), on_file=told)
        except BaseException as exc:
            reason = " ".join(str(exc).split()) if isinstance(exc, IngestAborted) else "the upload job stopped"
            for outcome, _, _ in placed.values():
                if outcome.status == "running":
                    outcome.status, outcome.reason = "failed", reason
            raise
        finally:
            for outcome, path, kept in placed.values():
                if outcome.status in ("failed", "running"):
                    _undo(path, kept)
                elif kept is not None:
                    kept.unlink(missing_ok=True)
            self.writer.changed()

    # -- --sync-every ----------------------------------------------------------------
    def sync_job(self) -> Job:
        """Queue a run of the configured sync (``result``: the SyncStats dict)."""
        return self.writer.submit("sync", lambda _job: _jsonable(self.rag.sync().to_dict()))

    def run_sync(self) -> dict[str, Any]:
        """Run the configured sync as a job and wait for it; its stats, or its error raised."""
        job = self.sync_job()
        while not self.writer.wait(job, 1.0):
            pass
        if job.exception is not None:
            raise job.exception
        return job.result

    def sync_every(self, seconds: float) -> threading.Thread:
        """Start a daemon thread queueing the configured sync every ``seconds`` (the first at once)."""
        def loop() -> None:
            while not self._stop.is_set():
                try:
                    stats = self.run_sync()
                    log.warning("sync: %s", {k: v for k, v in stats.items() if isinstance(v, int)})
                except Exception as exc:  # the server keeps serving; the next run may succeed
                    log.error("sync failed: %s", " ".join(str(exc).split()))
                self._stop.wait(seconds)

        thread = threading.Thread(target=loop, name="ragwire-sync", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        self.writer.stop()


def _write_unique(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` under ``name`` or the first free ``name (n)``; never over an existing file."""
    for _ in range(100):
        try:
            return write_new(folder, free_name(folder, name), data)
        except FileExistsError:
            continue  # another writer took the name between the look and the link
    raise UploadRefused(f"{name}: could not find a free name in the upload folder")


def _runs(files: list[tuple[FileOutcome, bytes]], replace: bool) -> Iterator[list[tuple[FileOutcome, bytes]]]:
    """``files`` in runs of one ingest each: a name repeated with ``replace`` starts a new run, so each
    replacement keeps aside the file it replaces, not an upload of the same request."""
    group: list[tuple[FileOutcome, bytes]] = []
    names: set[str] = set()
    for outcome, data in files:
        if replace and outcome.name in names:
            yield group
            group, names = [], set()
        group.append((outcome, data))
        names.add(outcome.name)
    if group:
        yield group


def _settle(outcome: FileOutcome, result: dict[str, Any]) -> None:
    """Copy one file's run outcome (``ingest_documents(on_file=...)``) onto its job entry."""
    outcome.status = result["status"]
    outcome.chunks = int(result.get("chunks") or 0)
    if outcome.status == "failed":
        outcome.reason = str(result.get("error") or "it could not be ingested")
    elif outcome.status == "skipped":
        outcome.reason = "unchanged: the collection already holds this content"


def _undo(path: Path, kept: Path | None) -> None:
    """Remove a file that failed to ingest; put back the file it replaced."""
    path.unlink(missing_ok=True)
    if kept is not None:
        kept.replace(path)


# Chunk metadata the operator needs and a web user must not see: where a synced folder lies on the server.
_SERVER_ONLY = frozenset({"sync_place"})


def _for_web(value: object) -> Any:
    """``value`` (JSON data) without the :data:`_SERVER_ONLY` keys, at any depth."""
    if isinstance(value, dict):
        return {k: _for_web(v) for k, v in value.items() if k not in _SERVER_ONLY}
    if isinstance(value, list):
        return [_for_web(v) for v in value]
    return value


def _jsonable(value: object) -> Any:
    """``value`` with what JSON cannot hold (dates from a custom loader) as text."""
    import json

    return json.loads(json.dumps(value, default=str))
