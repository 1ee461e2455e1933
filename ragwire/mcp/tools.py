"""The four MCP tools as plain functions over a RAGWire: text an agent reads well, no MCP dependency."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Mapping

from ragwire.errors import ProviderError
from ragwire.fields import BOOKKEEPING_FIELDS
from ragwire.retrieval.hit import Hit, format_location

if TYPE_CHECKING:
    from ragwire import RAGWire

log = logging.getLogger(__name__)

# Fields that describe how a chunk was stored, not what it says: an agent gains nothing
# from them and may mistake a hash for content.
HIDDEN_FIELDS = BOOKKEEPING_FIELDS | {"score_max"}
# Shown in a result's header line, so not repeated among its metadata.
_HEADER_FIELDS = frozenset({
    "source", "file_name", "heading_path", "page_number", "page_label", "page_total",
    "score", "score_type", "rerank_score",
})
_FILTER_EXAMPLE = '{"year": 2024}, {"language": ["en", "de"]} or {"year": {"gte": 2023}}'
_MAX_TOP_K = 50


def visible_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` without ragwire's internal fields and keys starting with ``_``."""
    return {k: v for k, v in metadata.items() if k not in HIDDEN_FIELDS and not str(k).startswith("_")}


def parse_filters(filters: Mapping[str, Any] | str | None) -> dict[str, Any] | None:
    """A filter dict from a dict or a JSON string (models often send a string for an object).

    Raises:
        ValueError: the string is not JSON, or the value is not an object.
    """
    if filters is None:
        return None
    if isinstance(filters, str):
        text = filters.strip()
        if not text:
            return None
        try:
            filters = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"filters is not valid JSON ({exc.msg} at position {exc.pos}): {text[:80]!r}. "
                f"Send a JSON object such as {_FILTER_EXAMPLE}, or leave filters out; "
                "call get_filter_context to see the fields and values you can filter on."
            ) from None
    if not isinstance(filters, Mapping):
        raise ValueError(
            f"filters must be a JSON object mapping field names to values, not {type(filters).__name__}; "
            f"for example {_FILTER_EXAMPLE}. Call get_filter_context to see the fields you can filter on."
        )
    return dict(filters) or None


def _check(text: str, what: str, top_k: int) -> None:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{what} is empty: send the words to look for")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= _MAX_TOP_K:
        raise ValueError(f"top_k must be a whole number from 1 to {_MAX_TOP_K}, not {top_k!r}")


def _value(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def search_documents(rag: RAGWire, query: str, top_k: int = 5,
                     filters: Mapping[str, Any] | str | None = None) -> str:
    """The passages that best match ``query``, numbered, each with its file and page or heading.

    Args:
        rag: A :class:`~ragwire.RAGWire`.
        query: What to look for.
        top_k: Passages to return (1 to 50).
        filters: Field values to restrict the search to, as a dict or a JSON string.

    Returns:
        Text: one numbered block per passage (location, source path, metadata, passage text).

    Raises:
        ValueError: an empty query, a bad top_k, or filters that are not a JSON object.
    """
    _check(query, "query", top_k)
    parsed = parse_filters(filters)
    docs = rag.retrieve(query, top_k=top_k, filters=parsed)
    if not docs:
        if parsed:
            return (f"No passage matched {query!r} with filters {json.dumps(parsed)}. Call get_filter_context "
                    "to check the fields and stored values, or search again without filters.")
        return f"No passage matched {query!r}: the collection may be empty."
    lines = [f"{len(docs)} passages for {query!r}" + (f" with filters {json.dumps(parsed)}" if parsed else "") + ":"]
    for rank, hit in enumerate((Hit.from_document(d) for d in docs), 1):
        score = hit.score_text()
        where = format_location(hit.file_name or hit.source or "unknown file", heading_path=hit.heading_path,
                                page_number=hit.page_number, page_label=hit.page_label, heading_with_page=True)
        lines += ["", f"[{rank}] {where}" + (f" ({score})" if score else "")]
        if hit.source:
            lines.append(f"source: {hit.source}")
        extra = {k: v for k, v in visible_metadata(hit.metadata).items()
                 if k not in _HEADER_FIELDS and v not in (None, "", [])}
        if extra:
            lines.append("metadata: " + "; ".join(f"{k}: {_value(v)}" for k, v in sorted(extra.items())))
        lines.append(hit.text.strip())
    return "\n".join(lines)


REFUSAL = ("The documents do not contain the answer to this question. Do not answer it from your own "
           "knowledge: tell the user the documents do not cover it, or try search_documents with other "
           "words or filters.")


def answer_question(rag: RAGWire, question: str, top_k: int = 5,
                    filters: Mapping[str, Any] | str | None = None, refine: bool | None = None) -> str:
    """An answer from the documents that cites numbered sources, or a plain refusal.

    Args:
        rag: A :class:`~ragwire.RAGWire`.
        question: The question to answer.
        top_k: Passages to ground the answer in (1 to 50).
        filters: Field values to restrict the answer's sources to, as a dict or a JSON string.
        refine: Search each part of a multi-part question and re-query what is missing
            (default: the config's ``generation.refine``).

    Returns:
        Text: the answer then ``Sources:`` with ``[n] file, page or heading``; or a refusal
        that starts with "The documents do not contain the answer".  Both end with a
        ``Trace id:`` line, the id of this query in the logs and in OpenTelemetry.

    Raises:
        ValueError: an empty question, a bad top_k, or filters that are not a JSON object.
    """
    _check(question, "question", top_k)
    parsed = parse_filters(filters)
    answer = rag.query(question, top_k=top_k, filters=parsed) if refine is None else rag.query(
        question, top_k=top_k, filters=parsed, refine=refine)
    trace = f"\n\nTrace id: {answer.trace_id}" if getattr(answer, "trace_id", "") else ""
    if answer.refused:
        return _refusal(rag, answer.filters_used or parsed, found=bool(answer.documents)) + trace
    lines = [answer.text.strip()]
    if answer.citations:
        lines += ["", "Sources:"]
        lines += [f"[{c.index}] {c.location}" for c in sorted(answer.citations, key=lambda c: c.index)]
    if answer.filters_used:
        lines += ["", f"Filters used: {json.dumps(answer.filters_used, default=str)}"]
    return "\n".join(lines) + trace


def _refusal(rag: RAGWire, filters: Mapping[str, Any] | None, found: bool) -> str:
    """Why there is no answer, as ``ragwire query`` says it: no passage at all (filters that
    match nothing, or an empty collection) is not the same as passages that do not answer."""
    if found:
        return REFUSAL + (f" Only documents matching the filters {json.dumps(filters, default=str)} were searched."
                          if filters else "")
    if not rag.get_stats().get("total_documents"):
        return ("The collection is empty: there is nothing to answer from. Tell the user the documents have not "
                "been added yet (ragwire ingest or ragwire sync); do not answer from your own knowledge.")
    if filters:
        return (f"No documents match the filters {json.dumps(filters, default=str)}, so there is nothing to answer "
                "from. Call get_filter_context to check the fields and stored values, or ask again without filters.")
    return REFUSAL


def get_filter_context(rag: RAGWire, query: str = "") -> str:
    """The fields an agent can filter on with their stored values, and the filters ``query`` asks for.

    Args:
        rag: A :class:`~ragwire.RAGWire`.
        query: The question the filters are for; with an ``llm`` section its filters are read from it.

    Returns:
        Markdown text listing each filterable field and its most frequent stored values.  When
        the LLM that reads filters from ``query`` fails, the fields and values still come back
        (they need no LLM), with a note that suggestions for the query are unavailable.
    """
    if not rag.filter_fields:
        return ("No fields to filter on: the collection is empty or its documents carry no metadata of their own. "
                "Search without filters.")
    note = ""
    try:
        context = rag.get_filter_context(query or "")
    except ProviderError as exc:
        log.warning("get_filter_context: the LLM failed, returning the fields without suggestions: %s", exc)
        context = rag.get_filter_context("")  # an empty query asks the LLM nothing
        note = ("\n\nNote: filter suggestions for this query are unavailable (the LLM could not be used: "
                f"{' '.join(str(exc).split()).rstrip('.')}). The fields and stored values above are complete; "
                "choose filters from them yourself.")
    usage = (f"\n\nPass filters to search_documents or answer_question as a JSON object of field to value, "
             f"for example {_FILTER_EXAMPLE}; a list of values matches any of them.")
    return context.rstrip() + note + usage


def collection_stats(rag: RAGWire) -> str:
    """The collection's name, chunk count, document count, vector size and embedding model, as text."""
    stats = rag.get_stats()
    lines = [
        f"collection: {stats.get('collection_name')}",
        f"chunks: {stats.get('total_documents', 0)}",
    ]
    if stats.get("sources") is not None:
        lines.append(f"documents: {stats['sources']}")
    lines.append(f"vector size: {stats.get('vector_size') or 'none yet (the collection is empty)'}")
    if stats.get("embedding_model"):
        lines.append(f"embedding model: {stats['embedding_model']}")
    return "\n".join(lines)
