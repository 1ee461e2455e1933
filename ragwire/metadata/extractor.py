"""Ask a chat model for a document's metadata, grounded on the values already stored, and normalise it.

One structured-output call per document (``llm.with_structured_output(model)``),
made through :func:`ragwire.providers.calls.invoke` like every other LLM call, so
its tokens and attempts are counted by the same rule; failures of any kind
(network, HTTP, a reply that is not JSON for the schema) become one-line
:class:`~ragwire.errors.ProviderError`s naming the LLM.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragwire.config import DEFAULT_RETRIES, MetadataConfig
from ragwire.errors import ProviderError
from ragwire.providers.calls import invoke
from ragwire.providers.retry import reason
from ragwire.providers.usage import Usage
from ragwire.stages import ChatModel
from ragwire.store.filters import finite_number

from .schema import FieldSpec, FinancialMetadata, MetadataSchema
from .schema_file import load_schema

# The config model's default (one home): an extractor built by hand behaves as one built from a config.
_MAX_CHARS: int = MetadataConfig.model_fields["max_chars"].default

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You extract metadata from documents. Fill each field only with what the document states; "
    "use null for anything it does not state. Write text values in lowercase."
)

DEFAULT_PROMPT = "Extract the metadata fields from this document.\n\nDocument:\n{content}"

STORED_VALUES_HINT = (
    "Values already stored in the collection. When the document refers to one of them, "
    "return it spelled exactly as here; use a new value only for something not listed:"
)

# Stored values shown to the LLM per field: enough to ground names, not a whole facet dump.
STORED_VALUES_LIMIT = 50

_TRUE = frozenset({"true", "yes", "y", "1"})
_FALSE = frozenset({"false", "no", "n", "0"})


class MetadataExtractor:
    """Extracts structured metadata from document text with an LLM.

    Args:
        llm: a LangChain chat model (anything with ``with_structured_output``).
        schema_model: a pydantic model of the fields; defaults to
            :class:`~ragwire.metadata.FinancialMetadata`.  Ignored when ``schema`` is given.
        schema: a :class:`MetadataSchema` (e.g. from :func:`load_schema`).
        max_chars: only the first ``max_chars`` characters of a document are sent.
        retries: extra attempts for a retryable LLM failure (network, 429, 5xx).

    Raises:
        ValueError: ``max_chars`` < 1 or ``retries`` < 0.
        ConfigError: ``schema_model`` has a field of an unsupported type.
    """

    def __init__(
        self,
        llm: ChatModel,
        schema_model: type[BaseModel] | None = None,
        *,
        schema: MetadataSchema | None = None,
        max_chars: int = _MAX_CHARS,
        retries: int = DEFAULT_RETRIES,
    ) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be >= 1, got {max_chars}")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        self.llm = llm
        self.schema = schema or MetadataSchema.from_model(schema_model or FinancialMetadata)
        self.max_chars = max_chars
        self.retries = retries

    @classmethod
    def from_yaml(
        cls, llm: ChatModel, yaml_path: str | Path, *, max_chars: int = _MAX_CHARS, retries: int = DEFAULT_RETRIES
    ) -> MetadataExtractor:
        """An extractor for the fields of a metadata.yaml file.

        Raises:
            ConfigError: the file is missing or invalid.
        """
        return cls(llm, schema=load_schema(yaml_path), max_chars=max_chars, retries=retries)

    @property
    def fields(self) -> list[FieldSpec]:
        """The fields this extractor fills."""
        return self.schema.fields

    def extract(self, text: str, stored_values: Mapping[str, Sequence[Any]] | None = None, *,
                usage: Usage | None = None) -> dict[str, Any]:
        """Extract the schema's fields from ``text``.

        Args:
            text: the document text (only the first ``max_chars`` characters are used).
            stored_values: field → values already in the collection; the LLM is asked
                to reuse their spelling.
            usage: a running total the call's tokens and attempts are added to,
                also when it fails (an ingest reports them as ``metadata_usage``).

        Returns:
            The normalised values (see :func:`normalise`); fields without a value are left out.

        Raises:
            ProviderError: the LLM could not be reached, failed, or did not answer
                with JSON that fits the schema.
        """
        prompt = self.schema.prompt or DEFAULT_PROMPT
        user = prompt.replace("{content}", text[: self.max_chars])
        system = SYSTEM_PROMPT
        hint = stored_values_block(self.fields, stored_values)
        if hint:
            system = f"{system}\n\n{hint}"
        raw = self.ask(system, user, "metadata extraction", usage=usage)
        return normalise(self.fields, raw)

    def extract_batch(self, texts: Sequence[str], stored_values: Mapping[str, Sequence[Any]] | None = None, *,
                      usage: Usage | None = None) -> list[dict[str, Any]]:
        """:meth:`extract` for each text in turn; the first failure raises."""
        return [self.extract(text, stored_values, usage=usage) for text in texts]

    def ask(self, system: str, user: str, step: str, *, usage: Usage | None = None) -> dict[str, Any]:
        """One structured-output call; the reply as a plain dict (not yet normalised).

        ``usage``, when given, gets the call's tokens and attempts added (see :meth:`extract`).

        Raises:
            ProviderError: see :meth:`extract`.
        """
        from langchain_core.messages import HumanMessage, SystemMessage

        what = describe_llm(self.llm, step)
        model = self.schema.reply_model  # any value per field: normalise checks each one
        try:
            structured = self.llm.with_structured_output(model, include_raw=True)
            result, _ = invoke(
                self.llm,
                [SystemMessage(content=system), HumanMessage(content=user)],
                retries=self.retries,
                what=what,
                runnable=structured,
                tally=usage,
                step=step,
            )
        except ProviderError:
            raise
        except (ValueError, TypeError) as exc:
            # pydantic's ValidationError and LangChain's OutputParserException are ValueErrors
            raise ProviderError(f"{what} failed: the reply does not fit the schema: {reason(exc)}") from exc
        return _unpack(result, what)


def stored_values_block(fields: Sequence[FieldSpec], stored_values: Mapping[str, Sequence[Any]] | None,
                        limit: int = STORED_VALUES_LIMIT) -> str:
    """The prompt lines listing stored values of the schema's fields ('' when there are none)."""
    if not stored_values:
        return ""
    lines = []
    for spec in fields:
        values = [v for v in stored_values.get(spec.name) or () if v is not None and v != ""]
        if values:
            lines.append(f"- {spec.name}: {json.dumps(list(values)[:limit], ensure_ascii=False, default=str)}")
    return f"{STORED_VALUES_HINT}\n" + "\n".join(lines) if lines else ""


def describe_llm(llm: object, step: str) -> str:
    """``LLM <step> (<Client> model <name> at <url>)`` for messages."""
    name = getattr(llm, "model_name", None) or getattr(llm, "model", None)
    url = None
    for attr in ("openai_api_base", "base_url", "anthropic_api_url", "groq_api_base"):
        value = getattr(llm, attr, None)
        if isinstance(value, str) and value:
            url = value
            break
    parts = [type(llm).__name__]
    if isinstance(name, str) and name:
        parts.append(f"model {name}")
    if url:
        parts.append(f"at {url}")
    return f"LLM {step} ({' '.join(parts)})"


def _unpack(result: object, what: str) -> dict[str, Any]:
    """The parsed reply of ``with_structured_output(..., include_raw=True)`` (or of a plain one) as a dict."""
    raw_message = None
    if isinstance(result, dict) and set(result) == {"raw", "parsed", "parsing_error"}:
        if result["parsing_error"] is not None:
            raise ProviderError(
                f"{what} failed: the reply does not fit the schema: {reason(result['parsing_error'])}"
            )
        raw_message = result["raw"]
        result = result["parsed"]
    if isinstance(result, BaseModel):
        result = result.model_dump(by_alias=True)
    if result is None:
        result = {}
    if not isinstance(result, dict):
        raise ProviderError(f"{what} failed: expected a JSON object, got {type(result).__name__}")
    if not any(v is not None for v in result.values()):
        _check_empty_reply(raw_message, what)
    return result


def _check_empty_reply(message: object, what: str) -> None:
    """An all-empty result from a reply that is not JSON is a failure, not "nothing found".

    Some clients (ChatOllama) parse a malformed reply leniently into an empty object.
    """
    content = getattr(message, "content", None)
    if not isinstance(content, str) or getattr(message, "tool_calls", None):
        return
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        json.loads(text)
    except ValueError:
        snippet = " ".join(content.split())[:80]
        raise ProviderError(f"{what} failed: the reply is not valid JSON: {snippet!r}") from None


def normalise(fields: Sequence[FieldSpec], raw: Mapping[str, Any] | BaseModel | None) -> dict[str, Any]:
    """Clean an LLM reply field by field: types fixed, text trimmed and lower-cased, bad values dropped.

    A value that cannot be read as its field's type (``"n/a"`` or ``2024.7`` for an
    ``int``, an integer beyond the store's 64-bit range) is dropped with a warning
    naming the field; the other fields are kept.  Empty values, values outside a
    field's allowed ``values`` and keys the schema does not have are dropped quietly.

    Args:
        fields: the schema's fields; keys of ``raw`` not among them are dropped.
        raw: the reply, as a dict or a pydantic model.

    Returns:
        field → value, only for fields with a usable value.
    """
    if raw is None:
        return {}
    if isinstance(raw, BaseModel):
        raw = raw.model_dump(by_alias=True)
    out: dict[str, Any] = {}
    for spec in fields:
        value = _read(spec, raw.get(spec.name))
        if value is None:
            continue
        if spec.values is not None:
            allowed = {_convert(_item_type(spec.type), v) for v in spec.values}
            if isinstance(value, list):
                kept = [v for v in value if v in allowed]
                if len(kept) < len(value):
                    logger.debug("%s: dropped values outside the allowed list: %r",
                                 spec.name, [v for v in value if v not in allowed])
                value = kept or None
            elif value not in allowed:
                logger.debug("%s: dropped %r, not among the allowed values", spec.name, value)
                value = None
        if value is not None:
            out[spec.name] = value
    return out


# The store keeps integers as signed 64-bit; a larger one would come back as a float (1e+20).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_TYPE_WORDS = {"str": "text", "int": "an integer", "float": "a number", "bool": "true or false"}


def _item_type(kind: str) -> str:
    return kind[5:-1] if kind.startswith("list[") else kind


def _empty(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or (
        isinstance(value, (list, tuple, set, dict)) and not value)


def _read(spec: FieldSpec, value: object) -> Any:
    """``value`` converted to the field's type; None when empty or unconvertible (warned)."""
    if _empty(value):
        return None
    if not spec.type.startswith("list["):
        converted = _convert(spec.type, value)
        if converted is None:
            _warn_dropped(spec, spec.type, value, "the field is dropped, the others are kept")
        return converted
    inner = _item_type(spec.type)
    items = value if isinstance(value, (list, tuple, set)) else [value]
    kept: list[Any] = []
    for item in items:
        if _empty(item):
            continue
        converted = _convert(inner, item)
        if converted is None:
            _warn_dropped(spec, inner, item, "the item is dropped, the others are kept")
        elif converted not in kept:
            kept.append(converted)
    return kept or None


def _warn_dropped(spec: FieldSpec, kind: str, value: object, outcome: str) -> None:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if kind == "int" and isinstance(value, (int, float, str)) and _integral(value) \
            and not INT64_MIN <= int(float(value)) <= INT64_MAX:
        why = "is outside the 64-bit integer range the store holds"
    else:
        why = f"is not {_TYPE_WORDS.get(kind, kind)}"
    logger.warning("metadata field %s: %s %s; %s", spec.name, shown, why, outcome)


def _integral(value: object) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    number = finite_number(value)
    return number is not None and number.is_integer()


def _convert(kind: str, value: object) -> Any:
    """``value`` as a ``kind`` scalar, or None when it cannot be read as one."""
    if value is None:
        return None
    if kind == "str":
        if isinstance(value, (dict, list, tuple, set)):
            return None
        text = " ".join(str(value).split()).lower()
        return text or None
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None
    if kind == "int":
        number: Any = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value  # exact, even past float precision
        elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            number = int(value.strip())
        else:
            found = finite_number(value)
            number = int(found) if found is not None and found.is_integer() else None
        return number if number is not None and INT64_MIN <= number <= INT64_MAX else None
    if kind == "float":
        return finite_number(value)
    return None
