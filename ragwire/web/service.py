"""What the HTTP API does, over the public :class:`~ragwire.RAGWire` API, one call at a time.

Every call takes :attr:`Service.lock`: the pipeline opens the embedded store for a call
and lets go after it, so between requests nothing holds the folder and a cron
``ragwire sync`` can run beside the server.  ``--sync-every`` runs the sync here instead,
under the same lock.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator, Mapping

from ragwire import RAGWire
from ragwire.errors import NotFoundError, RagwireError
from ragwire.loaders import SUPPORTED_EXTENSIONS

log = logging.getLogger(__name__)

DEFAULT_MAX_UPLOAD_MB = 20.0
# A name a person gave a file: letters, digits, spaces and ._()- ; no separators, no leading dot.
_SAFE_NAME = re.compile(r"^[\w][\w .()+-]{0,200}$", re.UNICODE)


class UploadRefused(RagwireError):
    """An upload the limits refuse (size, type, name); nothing was written."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Service:
    """The pipeline behind the API, with the lock every call takes and the upload rules.

    Args:
        rag: The pipeline (not held open: see the module docstring).
        upload_dir: Folder uploads are written to and ingested from; None turns uploads off.
        max_upload_mb: The largest file an upload may carry.
    """

    def __init__(self, rag: RAGWire, *, upload_dir: str | Path | None = None,
                 max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB) -> None:
        self.rag = rag
        self.lock = threading.Lock()
        self.upload_dir = Path(upload_dir).resolve() if upload_dir is not None else None
        self.max_upload_bytes = int(max_upload_mb * 2**20)
        self.extensions = tuple(SUPPORTED_EXTENSIONS)
        self._stop = threading.Event()

    # -- answers and search ----------------------------------------------------------
    def query(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
              refine: bool | None = None) -> dict[str, Any]:
        """``Answer.to_dict()`` of the question."""
        with self.lock:
            return self.rag.query(question, top_k=top_k, filters=filters or None, refine=refine).to_dict()

    def query_stream(self, question: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                     refine: bool | None = None) -> Iterator[str | dict[str, Any]]:
        """The answer's text pieces, then its ``to_dict()``; the caller must exhaust it (it holds the lock).

        A refined answer (``refine``, or ``generation.refine`` when None) is one piece.
        """
        with self.lock:
            for piece in self.rag.query_stream(question, top_k=top_k, filters=filters or None, refine=refine):
                yield piece if isinstance(piece, str) else piece.to_dict()

    def retrieve(self, query: str, top_k: int | None = None, filters: Mapping[str, Any] | None = None,
                 search_type: str | None = None) -> list[dict[str, Any]]:
        """Ranked chunks, each with its location and a score a person can read."""
        from ragwire.retrieval.hit import Hit

        with self.lock:
            documents = self.rag.retrieve(query, top_k=top_k, filters=filters or None, search_type=search_type)
        results = []
        for rank, document in enumerate(documents, 1):
            hit = Hit.from_document(document)
            results.append({
                "rank": rank, "text": hit.text, "source": hit.source, "file_name": hit.file_name,
                "location": hit.location(), "page_number": hit.page_number, "heading_path": hit.heading_path,
                "score": hit.best_score, "score_type": "rerank" if hit.rerank_score is not None else hit.score_type,
                "score_label": hit.score_label(), "metadata": _jsonable(hit.metadata),
            })
        return results

    # -- the collection --------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        with self.lock:
            return _jsonable(self.rag.get_stats())

    def fields(self, limit: int = 50) -> list[dict[str, Any]]:
        """Each filter field with its stored values, most frequent first."""
        with self.lock:
            names = list(self.rag.filter_fields)
            values = self.rag.get_field_values(names, limit) if names else {}
        assert isinstance(values, dict)
        return [{"name": name, "values": _jsonable(values.get(name, []))} for name in names]

    def documents(self) -> list[dict[str, Any]]:
        """Every stored source, without where its file lies on the server."""
        return [{k: v for k, v in doc.items() if k != "path"} for doc in self._documents()]

    def _documents(self) -> list[dict[str, Any]]:
        with self.lock:
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
        with self.lock:
            chunks = self.rag.document_chunks(source)
        return {"document": document, "chunks": _jsonable(chunks)}

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

    def delete(self, source: str) -> int:
        self.stored(source)
        with self.lock:
            return self.rag.delete_document(source)

    # -- uploads ---------------------------------------------------------------------
    def uploads_on(self) -> None:
        """Raises UploadRefused when the server was started without an upload folder."""
        if self.upload_dir is None:
            raise UploadRefused("uploads are off: start the server with --upload-dir FOLDER", 403)

    def check_upload(self, name: str, size: int | None) -> str:
        """The file name to write, once the name, type and size pass.

        Raises:
            UploadRefused: uploads are off, or the name, type or size is refused.
        """
        self.uploads_on()
        base = os.path.basename((name or "").replace("\\", "/"))
        if base != name or not _SAFE_NAME.match(base):
            raise UploadRefused(f"{name!r}: name the file with letters, digits, spaces and ._()+- only")
        ext = Path(base).suffix.lower()
        if ext not in self.extensions:
            raise UploadRefused(f"{base}: {ext or 'no extension'} is not a type ragwire reads "
                                f"({', '.join(self.extensions)})", 415)
        if size is not None and size > self.max_upload_bytes:
            raise UploadRefused(f"{base}: {size / 2**20:.1f} MB is over the {self.max_upload_bytes / 2**20:g} MB "
                                "upload limit (--max-upload-mb)", 413)
        return base

    def save_and_ingest(self, files: list[tuple[str, bytes]]) -> dict[str, Any]:
        """Write the checked files into the upload folder (each atomically) and ingest them."""
        assert self.upload_dir is not None
        self.upload_dir.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, data in files:
            target = self.upload_dir / name
            fd, tmp = tempfile.mkstemp(dir=self.upload_dir, prefix=".upload-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            paths.append(str(target))
        with self.lock:
            result = self.rag.ingest_documents(paths)
        return {"files": [Path(p).name for p in paths], "sources": paths, "result": _jsonable(result)}

    # -- --sync-every ----------------------------------------------------------------
    def run_sync(self) -> dict[str, Any]:
        with self.lock:
            return _jsonable(self.rag.sync().to_dict())

    def sync_every(self, seconds: float) -> threading.Thread:
        """Start a daemon thread running the configured sync every ``seconds`` (the first run at once)."""
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


def _jsonable(value: Any) -> Any:
    """``value`` with what JSON cannot hold (dates from a custom loader) as text."""
    import json

    return json.loads(json.dumps(value, default=str))
