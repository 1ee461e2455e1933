"""OpenTelemetry spans, following the GenAI semantic conventions, when the application traces.

ragwire never imports OpenTelemetry itself: a span is recorded only when the
application has already imported ``opentelemetry.trace`` and set a tracer
provider (``trace.set_tracer_provider(...)``).  Otherwise every helper here is a
no-op that costs a dictionary lookup, and ``opentelemetry`` stays out of
``sys.modules``.  Install the API and SDK with ``pip install 'ragwire[otel]'``.

The spans (names as the conventions shape them, ``{operation} {target}``):

* ``invoke_agent ragwire``: one per ``query`` / ``aquery`` / ``query_stream`` / ``chat``;
* ``retrieval {collection}``: each search (``retrieve()`` too), ``gen_ai.data_source.id`` =
  the collection, parent of its ``embeddings`` and ``rerank`` spans; the query text
  (``gen_ai.retrieval.query.text``) only when :func:`record_queries` turned it on, and
  the retrieved ids and scores (``gen_ai.retrieval.documents``) only when
  :func:`record_documents` did, since both can identify what a user asked or read;
* ``embeddings {model}``: the query embedding; ``rerank {model}``: the reranker;
* ``chat {model}``: every LLM call, kind CLIENT, with ``gen_ai.request.model``,
  ``gen_ai.operation.name``, ``gen_ai.usage.input_tokens`` / ``output_tokens`` and
  ``ragwire.step`` (``classify``, ``judge``, ``answer``, ``rewrite``, ``filter extraction``,
  ``metadata extraction``);
* ``ragwire ingest`` / ``ragwire sync``: a run, with its counts as ``ragwire.*`` attributes.

A span that ends in an exception gets status ERROR and ``error.type``, the exception's class.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

TRACER_NAME = "ragwire"
_RECORD_DOCUMENTS = os.environ.get("RAGWIRE_OTEL_RECORD_DOCUMENTS", "").lower() in {"1", "true", "yes"}
_RECORD_QUERIES = os.environ.get("RAGWIRE_OTEL_RECORD_QUERIES", "").lower() in {"1", "true", "yes"}
# Providers a request goes to over the network: their spans are kind CLIENT, as the conventions ask.
_REMOTE_EMBEDDINGS = frozenset({"openai", "openrouter", "ollama", "cohere", "google", "gcp.gemini"})


class SpanContext(Protocol):
    """What ragwire reads of a span's context: its trace id (0 when invalid)."""

    @property
    def trace_id(self) -> int: ...


class Span(Protocol):
    """What ragwire calls on an OpenTelemetry span (``opentelemetry.trace.Span``), never imported here."""

    def set_attributes(self, attributes: Mapping[str, object]) -> None: ...

    def get_span_context(self) -> SpanContext: ...


def record_documents(enabled: bool = True) -> None:
    """Put the retrieved chunk ids and scores on retrieval spans (off by default; also ``RAGWIRE_OTEL_RECORD_DOCUMENTS=1``)."""
    global _RECORD_DOCUMENTS
    _RECORD_DOCUMENTS = enabled


def record_queries(enabled: bool = True) -> None:
    """Put the query text on retrieval spans as ``gen_ai.retrieval.query.text`` (off by default;
    also ``RAGWIRE_OTEL_RECORD_QUERIES=1``): what users ask can be personal."""
    global _RECORD_QUERIES
    _RECORD_QUERIES = enabled


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
def span(name: str, attributes: Mapping[str, Any] | None = None, *, client: bool = False) -> Iterator[Span | None]:
    """A span named ``name`` as a child of the current one; yields None when nothing is traced.

    ``client`` makes it kind CLIENT (a request to another service: a chat model, a remote
    embedder), else INTERNAL.  An exception leaving the block is recorded on the span
    (status ERROR, ``error.type`` its class) and re-raised.
    """
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    trace = sys.modules["opentelemetry.trace"]
    kind = trace.SpanKind.CLIENT if client else trace.SpanKind.INTERNAL
    with tracer.start_as_current_span(name, kind=kind, attributes=_clean(attributes or {})) as current:
        try:
            yield current
        except Exception as exc:  # GeneratorExit (a stream closed early) is no failure
            current.set_attribute("error.type", error_type(exc))
            raise


def error_type(exc: BaseException) -> str:
    """``error.type`` of a failure: the exception's fully qualified class name."""
    cls = type(exc)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def set_attributes(current: Span | None, attributes: Mapping[str, Any]) -> None:
    """Add ``attributes`` to ``current`` (a span from :func:`span`, or None); None values are left out."""
    if current is not None:
        current.set_attributes(_clean(attributes))


def trace_id(current: Span | None) -> str:
    """The span's trace id as 32 hex digits, or a fresh random id of the same form when nothing is traced."""
    if current is not None:
        context = current.get_span_context()
        if context.trace_id:
            return format(context.trace_id, "032x")
    return uuid.uuid4().hex


def chat_attributes(llm: object, step: str | None = None) -> dict[str, Any]:
    """The request attributes of a ``chat`` span for the LangChain chat model ``llm``;
    ``step`` says what the call is for (``classify``, ``judge``, ``answer``, …)."""
    model = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": str(model),
        "gen_ai.provider.name": _provider(llm),
        "ragwire.step": step,
    }


def embedding_attributes(embedding: object, model: str) -> tuple[dict[str, Any], bool]:
    """The attributes of an ``embeddings`` span, and whether it is a CLIENT span (a remote provider)."""
    provider = getattr(embedding, "provider", None)
    name = provider if isinstance(provider, str) and provider else _provider(embedding)
    attributes = {"gen_ai.operation.name": "embeddings", "gen_ai.request.model": model, "gen_ai.provider.name": name}
    return attributes, name in _REMOTE_EMBEDDINGS


def query_attribute(query: str) -> dict[str, Any]:
    """``gen_ai.retrieval.query.text``, or nothing when not opted in (:func:`record_queries`)."""
    return {"gen_ai.retrieval.query.text": query} if _RECORD_QUERIES else {}


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


def set_counts(current: Span | None, stats: Mapping[str, Any]) -> None:
    """The numeric fields of an ingest or sync stats dict as ``ragwire.<name>`` attributes of ``current``."""
    if current is not None:
        current.set_attributes({f"ragwire.{k}": v for k, v in stats.items()
                                if isinstance(v, (int, float)) and not isinstance(v, bool)})


def _provider(llm: object) -> str:
    name = type(llm).__name__.lower()
    for provider in ("openrouter", "openai", "anthropic", "ollama", "groq", "google", "cohere"):
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
