"""metadata.yaml → a typed schema: the fields the LLM extracts, the pydantic model it fills, a fingerprint.

The default schema is :class:`FinancialMetadata`; a user pydantic model works
too (:meth:`MetadataSchema.from_model`).  :class:`DocumentMetadata` describes a
whole chunk's metadata (extracted fields plus what ragwire writes itself).  Reading the
metadata.yaml file is :mod:`ragwire.metadata.schema_file`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from ragwire.errors import ConfigError
from ragwire.fields import SYSTEM_FIELDS

FieldType = Literal["str", "int", "float", "bool", "list[str]", "list[int]"]

# "list[int]" is not advertised in metadata.yaml.example but is accepted: the
# default schema's fiscal_year is a list of years.
FIELD_TYPES: tuple[str, ...] = ("str", "int", "float", "bool", "list[str]", "list[int]")

_PYTHON_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "list[str]": list[str],
    "list[int]": list[int],
}

# Payload keys ragwire writes itself (see ragwire.fields).
RESERVED_NAMES = SYSTEM_FIELDS


@dataclass(frozen=True)
class FieldSpec:
    """One metadata field the LLM extracts.

    Attributes:
        name: the payload key (letters, digits, underscores).
        type: one of ``str``, ``int``, ``float``, ``bool``, ``list[str]`` (or ``list[int]``).
        description: what the LLM reads about the field.
        values: the allowed values, or None for any value.
    """

    name: str
    type: str
    description: str = ""
    values: tuple[Any, ...] | None = None


@dataclass
class MetadataSchema:
    """The fields to extract, an optional prompt template with a ``{content}`` placeholder, and the model.

    Attributes:
        fields: the fields, in file order.
        prompt: the extraction prompt (``{content}`` is replaced by the document
            text), or None for ragwire's own.
    """

    fields: list[FieldSpec]
    prompt: str | None = None
    _model: type[BaseModel] | None = field(default=None, repr=False, compare=False)
    _reply_model: type[BaseModel] | None = field(default=None, repr=False, compare=False)

    @property
    def names(self) -> list[str]:
        """The field names, in order."""
        return [f.name for f in self.fields]

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model the LLM fills: every field Optional, with its description."""
        if self._model is None:
            self._model = build_model(self.fields)
        return self._model

    @property
    def reply_model(self) -> type[BaseModel]:
        """What the LLM's reply is read into: :attr:`model`'s JSON schema, but any value per field.

        The LLM sees the same schema; the values are checked field by field
        afterwards (:func:`~ragwire.metadata.normalise`), so one value that cannot
        be converted loses that field, not the whole reply.
        """
        if self._reply_model is None:
            self._reply_model = lenient_model(self.model)
        return self._reply_model

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the fields and prompt: changes when anything the LLM sees changes."""
        canonical = {
            "fields": [
                {
                    "name": f.name,
                    "type": f.type,
                    "description": f.description,
                    "values": list(f.values) if f.values is not None else None,
                }
                for f in self.fields
            ],
            "prompt": self.prompt,
        }
        data = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(data.encode("utf-8")).hexdigest()

    @classmethod
    def from_model(cls, model: type[BaseModel], prompt: str | None = None) -> MetadataSchema:
        """The schema of a user's pydantic model; the model itself is what the LLM fills.

        Args:
            model: a pydantic model whose fields are (Optional) str, int, float,
                bool, list[str], list[int] or a Literal of strings.
            prompt: an optional prompt template with a ``{content}`` placeholder.

        Raises:
            ConfigError: a field of an unsupported type or a reserved name.
        """
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ConfigError(
                f"schema_model: expected a pydantic BaseModel subclass, got {model!r}",
                source="MetadataExtractor",
            )
        source = f"schema_model {model.__name__}"
        specs: list[FieldSpec] = []
        problems: list[str] = []
        for name, info in model.model_fields.items():
            key = info.alias or name
            kind, values = _spec_type(info.annotation)
            if kind is None:
                problems.append(
                    f"{key}: unsupported type {info.annotation!r}; use one of {', '.join(FIELD_TYPES)}"
                )
                continue
            if key in RESERVED_NAMES:
                problems.append(f"{key}: reserved name (ragwire writes this field itself)")
                continue
            specs.append(FieldSpec(key, kind, info.description or "", values))
        if problems:
            raise ConfigError(problems, source=source)
        if prompt is not None:
            _check_prompt(prompt, source)
        return cls(fields=specs, prompt=prompt, _model=model)


def build_model(fields: list[FieldSpec], name: str = "DocumentFields") -> type[BaseModel]:
    """A pydantic model with one Optional field per spec; allowed values go into the description."""
    definitions: dict[str, Any] = {}
    for spec in fields:
        description = spec.description.strip()
        if spec.values:
            if description and not description.endswith((".", "!", "?")):
                description += "."
            allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in spec.values)
            description = f"{description} Allowed values: {allowed}.".strip()
        py_type = _PYTHON_TYPES[spec.type]
        definitions[spec.name] = (Optional[py_type], Field(None, description=description or None))
    return create_model(name, __config__=ConfigDict(extra="ignore"), **definitions)


def lenient_model(model: type[BaseModel]) -> type[BaseModel]:
    """A twin of ``model`` with the same JSON schema whose fields accept any value (default None).

    Clients validate a structured reply against the model they are given, inside the
    call (the OpenAI SDK does so before the raw reply can be seen): with ``model``
    itself, ``"year": "n/a"`` would fail the whole extraction.
    """
    schema = model.model_json_schema(by_alias=True)

    def same_schema(target: dict[str, Any], *_: object) -> None:
        target.clear()
        target.update(copy.deepcopy(schema))

    fields: dict[str, Any] = {name: (Any, Field(None, alias=info.alias)) for name, info in model.model_fields.items()}
    config = ConfigDict(extra="ignore", populate_by_name=True, json_schema_extra=same_schema)
    return create_model(model.__name__, __config__=config, __doc__=model.__doc__, **fields)


class FinancialMetadata(BaseModel):
    """The default schema: what a financial filing is about."""

    company_name: Optional[str] = Field(
        None, description="The company the document is about, in lowercase (e.g. 'apple inc.')"
    )
    doc_type: Optional[str] = Field(
        None, description="The kind of document in lowercase, e.g. '10-k', '10-q', '8-k', 'annual report'"
    )
    fiscal_quarter: Optional[str] = Field(
        None, description="The fiscal quarter the document covers, lowercase like 'q1', if any"
    )
    fiscal_year: Optional[list[int]] = Field(
        None, description="The fiscal year or years the document covers, e.g. [2025]"
    )


class DocumentMetadata(BaseModel):
    """One chunk's metadata: the extracted fields plus what ragwire writes; other keys are allowed.

    ``chunk_index`` and ``total_chunks`` may be left out for a document-level record.
    """

    model_config = ConfigDict(extra="allow")

    company_name: Optional[str] = None
    doc_type: Optional[str] = None
    fiscal_quarter: Optional[str] = None
    fiscal_year: Optional[list[int]] = None
    source: str
    file_name: str
    file_type: str
    file_hash: str
    chunk_id: str
    chunk_hash: Optional[str] = None
    content_hash: Optional[str] = None
    # Optional, so one record can describe a whole document, as the published API allows.
    chunk_index: Optional[int] = None
    total_chunks: Optional[int] = None
    created_at: Optional[str] = None
    heading_path: Optional[str] = None
    page_number: Optional[int] = None
    page_total: Optional[int] = None
    page_label: Optional[str] = None
    metadata_status: Optional[str] = None
    sync_source: Optional[str] = None


DEFAULT_SCHEMA_MODEL = FinancialMetadata


def _check_prompt(prompt: str, source: str) -> None:
    if "{content}" not in prompt:
        raise ConfigError("prompt: must contain the {content} placeholder", source=source)


def _spec_type(annotation: object) -> tuple[str | None, tuple[Any, ...] | None]:
    """Map a model field's annotation to a FieldSpec type (and Literal values), or (None, None)."""
    annotation = _strip_optional(annotation)
    origin = typing.get_origin(annotation)
    if origin is Literal:
        values = typing.get_args(annotation)
        if all(isinstance(v, str) for v in values):
            return "str", tuple(values)
        return None, None
    if origin in (list, typing.List):  # noqa: UP006 - user models may use typing.List
        args = typing.get_args(annotation)
        inner = _strip_optional(args[0]) if args else str
        if inner is str:
            return "list[str]", None
        if inner is int:
            return "list[int]", None
        return None, None
    for name, py_type in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if annotation is py_type:
            return name, None
    return None, None


def _strip_optional(annotation: object) -> object:
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


