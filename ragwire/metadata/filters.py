"""Filters from a question: the LLM proposes, the stored values decide; and the agent's filter-context block.

The checks a caller's filters pass before any search live with the filter
translation, in :func:`ragwire.store.filters.check_filters`.

A filter that matches no stored value would only return nothing, so every
proposed value is mapped onto a stored one (same text, other case, or a close
spelling) or dropped.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .extractor import normalise, stored_values_block
from .schema import FieldSpec

if TYPE_CHECKING:
    from ..providers.usage import Usage
    from .extractor import MetadataExtractor

logger = logging.getLogger(__name__)

FILTER_SYSTEM_PROMPT = (
    "You turn a search question into metadata filters. Fill a field only when the question "
    "clearly asks to restrict the results by it (a named company, a year, a document type); "
    "leave every other field null. Do not guess and do not infer from the topic alone. "
    "Write text values in lowercase."
)

# How alike a proposed and a stored spelling must be (difflib ratio) to count as the same value.
CLOSE_MATCH_CUTOFF = 0.85

INSTRUCTIONS = (
    "1. Review the extracted filters above.\n"
    "2. If an extracted value does not match or closely relate to any stored value, adjust or drop that filter.\n"
    "3. If the query has no clear metadata intent, pass an empty dict {} as filters.\n"
    "4. Pass the final filters dict to the retrieval tool as filters=."
)

# Words that name a company's legal form: "Apple Inc." and "apple" are one company.
_SUFFIXES = frozenset({
    "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "llc", "plc",
    "ag", "sa", "gmbh", "nv", "bv", "holdings",
})


def extract_filters(
    extractor: MetadataExtractor,
    query: str,
    stored_values: Mapping[str, Sequence[Any]] | None,
    *,
    usage: Usage | None = None,
) -> dict[str, Any] | None:
    """Ask the LLM for the filters ``query`` clearly asks for, then keep only those that match stored values.

    Args:
        extractor: supplies the LLM, the schema and the retry policy.
        query: the user's question.
        stored_values: field → values stored in the collection (e.g. from facets).
            None means unknown: the normalised values are returned unchecked.
            Given, a field with no stored values is dropped.
        usage: when given, the call's tokens and attempts are added to it.

    Returns:
        field → value ready for ``retrieve(filters=...)``, or None when nothing is left.

    Raises:
        ProviderError: the LLM failed (see :meth:`MetadataExtractor.extract`).
    """
    if not query or not query.strip():
        return None
    system = FILTER_SYSTEM_PROMPT
    hint = stored_values_block(extractor.fields, stored_values)
    if hint:
        system = f"{system}\n\n{hint}"
    raw = extractor.ask(system, f"Question: {query.strip()}", "filter extraction", usage=usage)
    proposed = normalise(extractor.fields, raw)
    if stored_values is None:
        return proposed or None
    filters = validate_filters(extractor.fields, proposed, stored_values)
    return filters or None


def validate_filters(
    fields: Sequence[FieldSpec],
    proposed: Mapping[str, Any],
    stored_values: Mapping[str, Sequence[Any]],
) -> dict[str, Any]:
    """Map each proposed value onto a stored value, dropping what matches nothing.

    Text matches exactly, then ignoring case, then ignoring punctuation and
    legal-form words ("Apple Inc." → "apple"), then by a close spelling.
    Numbers and booleans must be stored as they are.
    """
    out: dict[str, Any] = {}
    for spec in fields:
        if spec.name not in proposed:
            continue
        value = proposed[spec.name]
        stored = [v for v in stored_values.get(spec.name) or () if v is not None and v != ""]
        if not stored:
            logger.debug("filter %s=%r dropped: the field has no stored values", spec.name, value)
            continue
        match = _match_text if spec.type in ("str", "list[str]") else _match_exact
        if isinstance(value, list):
            kept: list[Any] = []
            for item in value:
                found = match(item, stored)
                if found is None:
                    logger.debug("filter %s: %r dropped, no stored value matches", spec.name, item)
                elif found not in kept:
                    kept.append(found)
            if kept:
                out[spec.name] = kept
            continue
        found = match(value, stored)
        if found is None:
            logger.debug("filter %s=%r dropped: no stored value matches", spec.name, value)
        else:
            out[spec.name] = found
    return out


def filter_context(
    fields: Sequence[str],
    stored_values: Mapping[str, Sequence[Any]],
    extracted: Mapping[str, Any] | None,
    *,
    limit: int = 50,
) -> str:
    """The markdown block that tells an agent which filters exist and which the query suggests.

    Args:
        fields: the filterable fields, in order.
        stored_values: field → stored values, most common first.
        extracted: the filters extracted from the query, or None.
        limit: stored values shown per field; more are cut with ``...``.

    Returns:
        The block, starting with ``## RAGWire Filter Context``.
    """
    lines = ["## RAGWire Filter Context", "", "### Available Metadata Fields and Stored Values"]
    for name in fields:
        lines.append(f"- **{name}**: {_json_list(list(stored_values.get(name) or ()), limit)}")
    if not fields:
        lines.append("- none")
    lines += ["", "### Extracted Filters from Query"]
    if extracted:
        for name, value in extracted.items():
            lines.append(f"- **{name}**: `{_inline(value)}`")
    else:
        lines.append("- none")
    lines += ["", "### Instructions", INSTRUCTIONS]
    return "\n".join(lines)


def _match_text(value: object, stored: Sequence[Any]) -> Any:
    text = str(value)
    for candidate in stored:
        if str(candidate) == text:
            return candidate
    lowered = text.casefold()
    for candidate in stored:
        if str(candidate).casefold() == lowered:
            return candidate
    key = _key(text)
    if key:
        for candidate in stored:
            if _key(str(candidate)) == key:
                return candidate
    keys = {_key(str(c)): c for c in stored}
    close = difflib.get_close_matches(key or lowered, [k for k in keys if k], n=1, cutoff=CLOSE_MATCH_CUTOFF)
    return keys[close[0]] if close else None


def _match_exact(value: object, stored: Sequence[Any]) -> Any:
    for candidate in stored:
        if isinstance(candidate, bool) != isinstance(value, bool):
            continue
        if candidate == value:
            return candidate
        if isinstance(candidate, str):
            # a number stored as text by an older schema still filters on that text
            if candidate.strip() == str(value):
                return candidate
    return None


def _key(text: str) -> str:
    """Lower case, punctuation gone, legal-form words at the end dropped."""
    words = re.findall(r"\w+", text.casefold())
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    return " ".join(words)


def _json_list(values: list[Any], limit: int) -> str:
    shown = json.dumps(values[: max(limit, 0)], ensure_ascii=False, default=str)
    if len(values) > limit:
        shown = shown[:-1] + (", ...]" if limit > 0 else "...]")
    return shown


def _inline(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
