"""The API's bodies in and out, as the OpenAPI description shows them, and the bearer token.

The request bodies are validated (an unknown key is refused by name).  The routes return
plain dicts built by :mod:`ragwire.web.service`; the response models describe those dicts
for clients without re-validating every response.  Every error, whatever its status, is
``{"error": "<one line>"}``.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragwire.retrieval import SEARCH_TYPES


class QueryBody(BaseModel):
    model_config = ConfigDict(extra="forbid")  # {"topk": 1} is a 422 naming the key, never ignored

    question: str = Field(min_length=1, description="The question to answer from the documents.")
    top_k: int | None = Field(default=None, ge=1, le=50, description="Passages to use (default retriever.top_k).")
    filters: dict[str, Any] | None = Field(default=None, description='Metadata filters, e.g. {"year": 2024}.')
    refine: bool | None = Field(default=None, description="Plan, search each part, judge and search again "
                                "(default generation.refine); the answer's trace shows the steps.")


class ChatTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str


class ChatBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messages: list[ChatTurn] = Field(min_length=1, description="The conversation, oldest first; the last turn "
                                     "is the user's question (a follow-up is rewritten into a standalone one).")
    top_k: int | None = Field(default=None, ge=1, le=50, description="Passages to use (default retriever.top_k).")
    filters: dict[str, Any] | None = Field(default=None, description='Metadata filters, e.g. {"year": 2024}.')


class RetrieveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, description="The search text.")
    top_k: int | None = Field(default=None, ge=1, le=100)
    filters: dict[str, Any] | None = None
    search_type: str | None = Field(default=None, description="similarity, mmr, hybrid or keyword "
                                     "(default retriever.search_type).", json_schema_extra={"enum": [*SEARCH_TYPES]})

    @field_validator("search_type")
    @classmethod
    def _known_search_type(cls, value: str | None) -> str | None:
        # checked here so the message names the request's field, not the config key of the same name
        if value is not None and value not in SEARCH_TYPES:
            raise ValueError(f"{value!r} is not a search type: {', '.join(SEARCH_TYPES)}")
        return value


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # fields added later reach clients before this file says so


class ErrorBody(BaseModel):
    error: str = Field(description="What failed and how to fix it, in one line.")


class Citation(_Open):
    index: int
    source: str
    file_name: str | None = None
    page_number: int | None = None
    page_end: int | None = None
    heading_path: str | None = None
    text: str = Field(description="The cited chunk's text.")
    quotes: list[str] = Field(default_factory=list, description="The answer's sentences that cite it.")


class Marker(_Open):
    start: int
    end: int
    sources: list[int]


class AnswerBody(_Open):
    text: str
    refused: bool
    mode: str | None = None
    confidence: float | None = None
    citations: list[Citation]
    markers: list[Marker] = Field(description="Where each [n] marker is in text, and the citations it names.")
    sources: list[str] = Field(default_factory=list, description="The sources the answer drew on.")
    filters_used: dict[str, Any] | None = None
    usage: dict[str, Any] = Field(description="Tokens, seconds and cost.")
    trace_id: str | None = None
    iterations: int = 1
    trace: list[dict[str, Any]] = Field(default_factory=list,
                                        description="The steps: retrieve, rewrite, plan, judge…")


class Result(_Open):
    rank: int
    text: str
    source: str
    file_name: str | None = None
    location: str
    page_number: int | None = None
    heading_path: str | None = None
    score: float | None = None
    score_type: str | None = None
    score_label: str
    metadata: dict[str, Any] = {}


class Results(BaseModel):
    query: str
    results: list[Result]


class Stats(_Open):
    collection_name: str
    total_documents: int = Field(description="Chunks stored.")
    sources: int = Field(description="Documents stored.")
    vector_size: int | None = None
    indexed: int = 0
    engine: str
    embedding_model: str | None = None
    unfinished_migration: str | None = None


class FieldValues(BaseModel):
    name: str
    values: list[Any]


class Fields(BaseModel):
    fields: list[FieldValues]


class Document(_Open):
    source: str
    file_name: str
    file_type: str
    chunks: int
    pages: int | None = None
    metadata_status: str | None = None
    ocr: bool | None = None
    ingested_at: str | None = None


class UploadSettings(BaseModel):
    enabled: bool
    max_mb: float
    types: list[str]


class Documents(BaseModel):
    documents: list[Document]
    upload: UploadSettings


class FileOutcome(BaseModel):
    name: str
    status: str = Field(description="queued, running, processed, skipped or failed.")
    chunks: int = 0
    reason: str | None = None
    stored_as: str | None = None


class Job(_Open):
    id: str
    kind: str = Field(description="upload, delete, sync or a handed-over run.")
    state: str = Field(description="queued, running, done or failed.")
    error: str | None = None
    files: list[FileOutcome]
    counts: dict[str, int]
    result: Any = None
    created: float
    started: float | None = None
    finished: float | None = None


class Accepted(BaseModel):
    job: Job
    url: str = Field(description="Where to follow the job: GET it until its state is done or failed.")


class Jobs(BaseModel):
    jobs: list[Job]


class Source(BaseModel):
    document: Document
    chunks: list[dict[str, Any]] = Field(description='{"id", "text", "metadata"} per chunk, in reading order.')


# What any /api route may answer before it runs: the checks of ragwire.server.security.
_GUARD = {401: "No token, or a token not accepted", 403: "Another site's page, or a write from another origin",
          421: "A Host name the server does not answer to"}
_MEANING = {400: "A request the pipeline refuses (an unknown filter field, a value of the wrong type)",
            404: "Not a stored document, or no such job", 411: "An upload without a Content-Length",
            413: "Over the upload limit", 415: "Not a type ragwire reads",
            422: "A missing, malformed or unknown request field, named",
            502: "The model or the embedding service did not answer", 503: "The collection is busy"}


def responses(model: type[BaseModel] | None, *errors: int, status: int = 200,
              description: str = "") -> dict[int | str, dict[str, Any]]:
    """A route's ``responses=``: ``model`` at ``status``, then each error status and the guard's, as ErrorBody."""
    out: dict[int | str, dict[str, Any]] = {}
    if model is not None:
        out[status] = {"model": model, "description": description or "Success"}
    for code in sorted({*errors, *_GUARD}):
        out[code] = {"model": ErrorBody, "description": _GUARD.get(code) or _MEANING[code]}
    return out


_ERROR_REF = "#/components/schemas/ErrorBody"


def describe_security(app: FastAPI) -> None:
    """Add the bearer scheme to ``app``'s OpenAPI description (Swagger's Authorize button), on every /api route,
    and describe FastAPI's own 422 as the body the app sends.

    A token is optional in the description: a server started without one takes none.
    """
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema.setdefault("components", {}).setdefault("securitySchemes", {})["bearer"] = {
                "type": "http", "scheme": "bearer",
                "description": "The server's token (--token or $RAGWIRE_SERVER_TOKEN), when it was started with one."}
            for path, operations in schema.get("paths", {}).items():
                for operation in operations.values():
                    if path.startswith("/api/"):
                        operation["security"] = [{"bearer": []}, {}]
                    invalid = operation.get("responses", {}).get("422")
                    if invalid is not None:  # the app's handler answers every validation error as ErrorBody
                        invalid["content"] = {"application/json": {"schema": {"$ref": _ERROR_REF}}}
                        invalid["description"] = _MEANING[422]
            for name in ("HTTPValidationError", "ValidationError"):
                schema["components"].get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
