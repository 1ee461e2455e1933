"""OpenTelemetry spans, following the GenAI semantic conventions, when the application traces.

ragwire never imports OpenTelemetry itself: a span is recorded only when the
application has already imported ``opentelemetry.trace`` and set a tracer
provider (``trace.set_tracer_provider(...)``).  Otherwise every helper here is a
no-op that costs a dictionary lookup, and ``opentelemetry`` stays out of
``sys.modules``.  Install the API and SDK with ``pip install 'ragwire[otel]'``.

The spans (names as the conventions shape them, ``{operation} {target}``):

* ``invoke_agent ragwire``: one per ``query`` / ``aquery`` / ``query_stream`` / ``chat``;
* ``retrieval {collection}``: each search, ``gen_ai.data_source.id`` = the collection;
  the retrieved ids and scores (``gen_ai.retrieval.documents``) only when
  :func:`record_documents` turned them on, since they can identify documents;
* ``embeddings {model}``: the query embedding; ``rerank {model}``: the reranker;
* ``chat {model}``: every LLM call, with ``gen_ai.request.model``,
  ``gen_ai.operation.name`` and ``gen_ai.usage.input_tokens`` / ``output_tokens``;
* ``ragwire ingest`` / ``ragwire sync``: a run, with its counts as ``ragwire.*`` attributes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

TRACER_NAME = "ragwire"
_RECORD_DOCUMENTS = os.environ.get("RAGWIRE_OTEL_RECORD_DOCUMENTS", "").lower() in {"1", "true", "yes"}


def record_documents(enabled: bool = True) -> None:
    """Put the retrieved chunk ids and scores on retrieval spans (off by default; also ``RAGWIRE_OTEL_RECORD_DOCUMENTS=1``)."""
    global _RECORD_DOCUMENTS
    _RECORD_DOCUMENTS = enabled


def documents_recorded() -> bool:
    """Whether retrieval spans carry the chunk ids and scores."""
    return _RECORD_DOCUMENTS


def _tracer() -> Any:
    """The application's tracer, or None when it imported no OpenTelemetry or set no provider."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    # The API's default provider records nothing; only a configured one is worth the spans.
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    return provider.get_tracer(TRACER_NAME)


def enabled() -> bool:
    """Whether spans are being recorded now."""
    return _tracer() is not None


@contextlib.contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A span named ``name`` as a child of the current one; yields None when nothing is traced.

    An exception leaving the block is recorded on the span (status ERROR) and re-raised.
    """
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    with tracer.start_as_current_span(name, attributes=_clean(attributes or {})) as current:
        yield current


def set_attributes(current: Any, attributes: Mapping[str, Any]) -> None:
    """Add ``attributes`` to ``current`` (a span from :func:`span`, or None); None values are left out."""
    if current is not None:
        current.set_attributes(_clean(attributes))


def trace_id(current: Any) -> str:
    """The span's trace id as 32 hex digits, or a fresh random id of the same form when nothing is traced."""
    if current is not None:
        context = current.get_span_context()
        if context.trace_id:
            return format(context.trace_id, "032x")
    return uuid.uuid4().hex


def chat_attributes(llm: Any) -> dict[str, Any]:
    """The request attributes of a ``chat`` span for the LangChain chat model ``llm``."""
    model = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": str(model),
        "gen_ai.provider.name": _provider(llm),
    }


def usage_attributes(input_tokens: int | None, output_tokens: int | None) -> dict[str, Any]:
    """``gen_ai.usage.*`` attributes (None values are dropped by :func:`set_attributes`)."""
    return {"gen_ai.usage.input_tokens": input_tokens, "gen_ai.usage.output_tokens": output_tokens}


def documents_attribute(hits: list[Any]) -> dict[str, Any]:
    """``gen_ai.retrieval.documents`` (a JSON list of ``{id, score}``), or nothing when not opted in."""
    if not _RECORD_DOCUMENTS:
        return {}
    docs = [{"id": getattr(h, "id", None),
             "score": getattr(h, "rerank_score", None) if getattr(h, "rerank_score", None) is not None
             else getattr(h, "score", None)} for h in hits]
    return {"gen_ai.retrieval.documents": json.dumps(docs)}


def run_attributes(collection: str) -> dict[str, Any]:
    """The attributes an ingest or sync span starts with."""
    return {"gen_ai.data_source.id": collection}


def set_counts(current: Any, stats: Mapping[str, Any]) -> None:
    """The numeric fields of an ingest or sync stats dict as ``ragwire.<name>`` attributes of ``current``."""
    if current is not None:
        current.set_attributes({f"ragwire.{k}": v for k, v in stats.items()
                                if isinstance(v, (int, float)) and not isinstance(v, bool)})


def _provider(llm: Any) -> str:
    name = type(llm).__name__.lower()
    for provider in ("openrouter", "openai", "anthropic", "ollama", "groq", "google"):
        if provider in name:
            return "gcp.gemini" if provider == "google" else provider
    return name


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """OpenTelemetry takes str, bool, int, float (or lists of one type); None is dropped, the rest made text."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        out[key] = value if isinstance(value, (str, bool, int, float)) else str(value)
    return out
