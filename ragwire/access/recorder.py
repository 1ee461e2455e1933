"""What a server request read, for its audit line: the pipeline the servers are handed records, per
request, the question or query, the filters and the sources its reads returned."""

from __future__ import annotations

import functools
import inspect
from contextvars import ContextVar, Token
from typing import Any, Iterator, TypeVar, cast

T = TypeVar("T")

# The audit record of the request being served (a dict the guard writes once the request ends).
_RECORD: ContextVar[dict[str, Any] | None] = ContextVar("ragwire_audit_record", default=None)

_QUERY_ARGS = ("query", "question")
_READS = frozenset({"retrieve", "hybrid_search", "query", "aquery", "query_stream", "chat", "chat_stream",
                    "list_documents", "document_chunks", "get_field_values", "get_filter_context", "get_stats"})


def current_record() -> dict[str, Any] | None:
    return _RECORD.get()


def set_record(record: dict[str, Any] | None) -> Token[dict[str, Any] | None]:
    """Make ``record`` the current request's (returns the token to reset it with)."""
    return _RECORD.set(record)


def reset_record(token: Token[dict[str, Any] | None]) -> None:
    _RECORD.reset(token)


def _sources(result: object) -> set[str]:
    """The sources a read returned: Documents, an Answer's citations, DocumentInfos, chunk dicts."""
    found: set[str] = set()
    items = result if isinstance(result, list) else [result]
    for item in items:
        citations = getattr(item, "citations", None)
        if citations is not None:
            found |= {str(c.source) for c in citations}
        metadata = getattr(item, "metadata", None)
        if isinstance(item, dict):
            metadata = item.get("metadata")
        if isinstance(metadata, dict) and metadata.get("source"):
            found.add(str(metadata["source"]))
        source = getattr(item, "source", None)
        if isinstance(source, str) and citations is None:
            found.add(source)
    return found


def _note(name: str, args: tuple, kwargs: dict, result: object = None, *, done: bool = False) -> None:
    record = _RECORD.get()
    if record is None:
        return
    record.setdefault("reads", [])
    if name not in record["reads"]:
        record["reads"].append(name)
    for key in _QUERY_ARGS:
        if key in kwargs and "query_text" not in record:
            record["query_text"] = kwargs[key]
    if args and isinstance(args[0], str) and name in ("retrieve", "hybrid_search", "query", "aquery",
                                                      "query_stream", "get_filter_context"):
        record.setdefault("query_text", args[0])
    if name in ("chat", "chat_stream") and args and isinstance(args[0], list) and args[0]:
        record.setdefault("query_text", str(args[0][-1].get("content", "")))
    if kwargs.get("filters"):
        record.setdefault("filters", kwargs["filters"])
    if done:
        record.setdefault("sources", set()).update(_sources(result))


class RecordingPipeline:
    """A :class:`~ragwire.RAGWire` (or a principal's view of one) whose reads note what they returned
    in the current request's audit record; everything else passes through unchanged."""

    def __init__(self, rag: object) -> None:
        self._rag = rag

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._rag, name)
        if name not in _READS or not callable(found):
            return found
        if inspect.iscoroutinefunction(found):
            @functools.wraps(found)
            async def run_async(*args: object, **kwargs: object) -> Any:
                result = await found(*args, **kwargs)
                _note(name, args, kwargs, result, done=True)
                return result
            return run_async

        @functools.wraps(found)
        def run(*args: object, **kwargs: object) -> Any:
            result = found(*args, **kwargs)
            if name in ("query_stream", "chat_stream"):
                _note(name, args, kwargs)
                return _noting_last(result, name, args, kwargs)
            _note(name, args, kwargs, result, done=True)
            return result
        return run


def _noting_last(pieces: Iterator[Any], name: str, args: tuple, kwargs: dict) -> Iterator[Any]:
    for piece in pieces:
        if not isinstance(piece, str):
            _note(name, args, kwargs, piece, done=True)
        yield piece


def recording(rag: T) -> T:
    """``rag`` with its reads noted in the request's audit record (a :class:`RecordingPipeline`, typed as ``rag``)."""
    return cast(T, RecordingPipeline(rag))
