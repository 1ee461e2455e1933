"""The FastAPI app: the JSON/SSE API under ``/api``, the page at ``/``, OpenAPI docs at ``/docs``.

Routes only translate HTTP to :class:`~ragwire.web.service.Service` calls and errors to
status codes; the security rules (Host, Origin, token) wrap the app in
:func:`ragwire.web.serve.build_asgi`, from :mod:`ragwire.server.security`.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import threading
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragwire import __version__
from ragwire.errors import NotFoundError, ProviderError, RagwireError, RequestError, StoreLockedError
from ragwire.server.contract import unknown_keys, validation_message
from ragwire.server.jobs import FileOutcome

from . import schema
from .schema import ChatBody, QueryBody, RetrieveBody, responses
from .service import Service, UploadRefused

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
_FORM_OVERHEAD = 64 * 1024  # multipart boundaries and part headers
# Document text reaches the page only as data (textContent), and this forbids every
# inline script, handler and foreign origin should anything slip through.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
# FastAPI's /docs page loads Swagger UI from its CDN with an inline start script.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
            "object-src 'none'; frame-ancestors 'none'")


# The keys each JSON body takes, for the did-you-mean of an unknown one.
_BODIES: dict[str, type[BaseModel]] = {"/api/query": QueryBody, "/api/chat": ChatBody, "/api/retrieve": RetrieveBody}


def strict_query(request: Request) -> None:
    """Refuse a query-string key the route does not read (``?sorce=``), naming it with a did-you-mean."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    known = [param.alias for param in dependant.query_params] if dependant is not None else []
    problem = unknown_keys(request.query_params.keys(), known,
                           f"the query of {request.method} {request.url.path}")
    if problem:
        raise RequestError(problem)


def _error(status: int, exc: BaseException) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(exc).split())}, status_code=status)


def _for_operator(status: int, exc: BaseException, message: str) -> JSONResponse:
    """A failure of the server's own setup: its details (paths, pids, addresses, commands to run) go to the
    server's log for the operator; the web user reads ``message`` and that the log has the rest."""
    log.warning("%s (answered %d): %s", exc.__class__.__name__, status, " ".join(str(exc).split()))
    return JSONResponse({"error": f"{message} (the server's log says more)"}, status_code=status)


def _accepted(job: dict[str, Any]) -> dict[str, Any]:
    """A 202 body: the job as it stands, and where to follow it."""
    return {"job": job, "url": f"/api/jobs/{job['id']}"}


def _sse(event: str, data: object) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def create_app(service: Service) -> FastAPI:
    """The FastAPI app over ``service`` (no security wrapper: see :func:`ragwire.web.serve.build_asgi`)."""
    app = FastAPI(title="ragwire", version=__version__, description="Ask, search and check citations.",
                  dependencies=[Depends(strict_query)])

    app.add_middleware(_SecurityHeaders)
    schema.describe_security(app)

    @app.exception_handler(RagwireError)
    async def ragwire_error(_request: Request, exc: RagwireError) -> JSONResponse:
        if isinstance(exc, UploadRefused):
            return _error(exc.status, exc)
        if isinstance(exc, NotFoundError):
            return _error(404, exc)
        if isinstance(exc, StoreLockedError):
            return _for_operator(503, exc, "the collection is busy: another program is using it. Try again "
                                 "in a moment")
        if isinstance(exc, ProviderError):
            return _for_operator(502, exc, "the answer model or the embedding service did not answer. Try again "
                                 "in a moment")
        return _error(400, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        body = _BODIES.get(request.url.path)
        where = f"the body of {request.method} {request.url.path}"
        return JSONResponse({"error": validation_message(exc.errors(), body.model_fields if body else (), where)},
                            status_code=422)

    @app.exception_handler(ValueError)
    async def value_error(_request: Request, exc: ValueError) -> JSONResponse:
        return _error(400, exc)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    streamed = {"text/event-stream": {"schema": {"type": "string", "description": "SSE: token events, then "
                                                 "answer (the JSON body) or error"}}}
    answer_responses = responses(schema.AnswerBody, 400, 422, 502, 503, description="The answer; with Accept: "
                                 "text/event-stream, server-sent events")
    answer_responses[200]["content"] = streamed

    @app.post("/api/query",
              response_model=None,
              summary="Answer a question, citing sources (JSON, or SSE with Accept: text/event-stream)",
              responses=answer_responses)
    async def query(body: QueryBody, request: Request) -> Any:
        args = (body.question, body.top_k, body.filters, body.refine)
        if "text/event-stream" not in request.headers.get("accept", ""):
            return await asyncio.to_thread(service.query, *args)
        return await _streamed(lambda: service.query_stream(*args))

    @app.post("/api/chat",
              response_model=None, summary="Answer the last turn of a conversation, a follow-up rewritten in context "
              "(JSON, or SSE with Accept: text/event-stream)", responses=answer_responses)
    async def chat(body: ChatBody, request: Request) -> Any:
        args = ([turn.model_dump() for turn in body.messages], body.top_k, body.filters)
        if "text/event-stream" not in request.headers.get("accept", ""):
            return await asyncio.to_thread(service.chat, *args)
        return await _streamed(lambda: service.chat_stream(*args))

    @app.post("/api/retrieve",
              response_model=None, summary="Ranked chunks with readable scores",
              responses=responses(schema.Results, 400, 422, 502, 503))
    def retrieve(body: RetrieveBody) -> dict[str, Any]:
        results = service.retrieve(body.query, body.top_k, body.filters, body.search_type)
        return {"query": body.query, "results": results}

    @app.get("/api/stats",
             response_model=None, summary="The collection: chunks, documents, engine, model",
             responses=responses(schema.Stats, 503))
    def stats() -> dict[str, Any]:
        return service.stats()

    @app.get("/api/fields",
             response_model=None, summary="Filter fields with their stored values",
             responses=responses(schema.Fields, 400, 422, 503))
    def fields(limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        return {"fields": service.fields(limit)}

    @app.get("/api/documents",
             response_model=None, summary="Every stored source", responses=responses(schema.Documents, 400, 503))
    def documents() -> dict[str, Any]:
        return {"documents": service.documents(),
                "upload": {"enabled": service.upload_dir is not None,
                           "max_mb": service.max_upload_bytes / 2**20, "types": list(service.extensions)}}

    @app.delete("/api/documents",
                response_model=None, status_code=202, summary="Queue the delete of a stored source's chunks",
                responses=responses(schema.Accepted, 400, 404, 422, 503, status=202, description="The job queued"))
    def delete(source: str = Query(..., description="The source, as GET /api/documents lists it.")) -> dict[str, Any]:
        return _accepted(service.delete(source).to_dict())

    @app.post("/api/documents",
              response_model=None, status_code=202, response_class=JSONResponse,
              responses=responses(schema.Accepted, 400, 403, 411, 413, 415, status=202, description="The job queued"),
              summary="Upload files (multipart field 'files'; 'replace=true' to replace same-named ones) as a job",
              openapi_extra={"requestBody": {"content": {"multipart/form-data": {"schema": {
              "type": "object", "properties": {
              "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
              "replace": {"type": "boolean"}}}}}}})
    async def upload(request: Request) -> JSONResponse:
        # The limits apply before the body is read: a declared length over the limit (one
        # request, all its files) is refused unread, and so is a body of unknown length.
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            raise UploadRefused("send the upload with a Content-Length", 411)
        service.uploads_on()
        if int(length) > service.max_upload_bytes + _FORM_OVERHEAD:
            raise UploadRefused(f"the upload is over this server's {service.max_upload_bytes / 2**20:g} MB limit",
                                413)
        form = await request.form(max_files=20, max_fields=20)
        files: list[tuple[str, bytes]] = []
        refused: list[tuple[FileOutcome, int]] = []
        try:
            problem = unknown_keys(form.keys(), ["files", "replace"], "the form of POST /api/documents")
            if problem:
                raise RequestError(problem)
            replace = str(form.get("replace") or "").lower() in ("1", "true", "yes", "on")
            uploads = [item for item in form.getlist("files") if not isinstance(item, str)]
            if not uploads:
                raise UploadRefused("no files: send them in the multipart field 'files'")
            for item in uploads:
                # one refused file fails alone: the others of the request still go in
                try:
                    name = service.check_upload(item.filename or "", item.size)
                    data = await item.read(service.max_upload_bytes + 1)
                    service.check_upload(name, len(data))
                except UploadRefused as exc:
                    refused.append((FileOutcome(item.filename or "", "failed", reason=str(exc)), exc.status))
                    continue
                files.append((name, data))
        finally:
            await form.close()
        if not files:
            # nothing to do: the request itself is refused, with each file's reason
            return JSONResponse({"error": refused[0][0].reason, "files": [f.to_dict() for f, _ in refused]},
                                status_code=refused[0][1])
        job = service.upload(files, [f for f, _ in refused], replace=replace)
        return JSONResponse(_accepted(job.to_dict()), status_code=202)

    @app.get("/api/jobs/{job_id}",
             response_model=None, summary="A write job: its state, each file's outcome, its result",
             responses=responses(schema.Job, 400, 404))
    def job(job_id: str) -> dict[str, Any]:
        return service.job(job_id)

    @app.get("/api/jobs",
             response_model=None, summary="The recent write jobs, oldest first", responses=responses(schema.Jobs, 400))
    def jobs() -> dict[str, Any]:
        return {"jobs": [j.to_dict() for j in service.writer.jobs()]}

    @app.get("/api/source",
             response_model=None, summary="A stored document and its chunks",
             responses=responses(schema.Source, 400, 404, 422, 503))
    def source(source: str = Query(...)) -> dict[str, Any]:
        return service.source(source)

    @app.get("/api/page-image",
             response_model=None, response_class=Response, summary="A stored PDF page as PNG, the passage highlighted",
             responses={**responses(None, 400, 404, 422, 503),
             200: {"content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
             "description": "The page; X-Ragwire-Page, X-Ragwire-Pages and X-Ragwire-Passage "
             "(found or not-found) say what was drawn"}})
    def page_image(source: str = Query(...), page: int = Query(1, ge=1),
                   text: str = Query("", max_length=8000, description="The passage to highlight.")) -> Response:
        image = service.page_image(source, page, text)
        return Response(image.png, media_type="image/png", headers={
            "x-ragwire-page": str(image.page), "x-ragwire-pages": str(image.pages),
            "x-ragwire-passage": "found" if image.found else "not-found", "cache-control": "no-store",
            # where the first box is, in the image's pixels, so the page view can scroll to it
            **({"x-ragwire-box": ",".join(f"{v:.0f}" for v in image.boxes[0])} if image.boxes else {})})

    return app


class _SecurityHeaders:
    """The page's CSP and the no-sniff and referrer headers on every response.

    A plain ASGI wrapper rather than ``@app.middleware``: that one re-streams the body
    through a queue of its own, and a streamed answer's reader hanging up went unseen.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if str(scope.get("path", "")).startswith(("/docs", "/redoc")) else PAGE_CSP
        extra = [(b"content-security-policy", csp.encode()), (b"x-content-type-options", b"nosniff"),
                 (b"referrer-policy", b"no-referrer")]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                have = {key.lower() for key, _ in headers}
                message = {**message, "headers": headers + [(k, v) for k, v in extra if k not in have]}
            await send(message)

        await self.app(scope, receive, sending)


async def _streamed(pieces: Callable[[], Iterator[str | dict[str, Any]]]) -> Response:
    """SSE events ``token`` ({"text"}), then ``answer`` (Answer.to_dict()) or ``error`` ({"error"}).

    The pipeline runs in a thread.  Nothing is sent until its first piece: a request the
    pipeline refuses (a bad filter, an unknown field) is raised here and answered with the
    same status and JSON body as the JSON mode, never as a 200 stream holding an error.
    When the reader goes away the thread stops at the next piece and closes the answer's
    generator, which closes the model's stream: no generation runs on for nobody.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    gone = threading.Event()

    def put(item: tuple[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        iterator: Iterator[Any] | None = None
        try:
            iterator = pieces()
            for piece in iterator:
                if gone.is_set():
                    break
                put(("token", {"text": piece}) if isinstance(piece, str) else ("answer", piece))
        except Exception as exc:  # raised before the first event, else reported as one; the server goes on
            put(("error", exc))
        finally:
            close = getattr(iterator, "close", None)  # a generator's: it closes the model's stream
            if close is not None:
                close()
            put(("end", None))

    # the request's context goes along: the reads are made as its principal (ragwire.access)
    threading.Thread(target=contextvars.copy_context().run, args=(work,), name="ragwire-stream", daemon=True).start()
    first = await queue.get()
    if first[0] == "error":
        raise first[1]

    async def events() -> AsyncIterator[bytes]:
        event, data = first
        try:
            while event != "end":
                yield _sse(event, {"error": " ".join(str(data).split())} if event == "error" else data)
                event, data = await queue.get()
        finally:
            gone.set()

    return _EventStream(events(), gone)


class _EventStream(StreamingResponse):
    """A streamed answer that marks itself abandoned however the reader leaves (a failed send included)."""

    def __init__(self, content: AsyncIterator[bytes], gone: threading.Event) -> None:
        super().__init__(content, media_type="text/event-stream",
                         headers={"cache-control": "no-store", "x-accel-buffering": "no"})
        self.gone = gone

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.gone.set()
