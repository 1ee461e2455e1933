"""metadata.yaml → schema; LLM metadata extraction grounded on stored values; filters from questions."""

from __future__ import annotations

from .extractor import MetadataExtractor, normalise
from .filters import extract_filters, filter_context, validate_filters
from .schema import (
    FIELD_TYPES,
    RESERVED_NAMES,
    DocumentMetadata,
    FieldSpec,
    FinancialMetadata,
    MetadataSchema,
)
from .schema_file import load_schema, parse_schema

__all__ = [
    "FIELD_TYPES",
    "RESERVED_NAMES",
    "DocumentMetadata",
    "FieldSpec",
    "FinancialMetadata",
    "MetadataExtractor",
    "MetadataSchema",
    "extract_filters",
    "filter_context",
    "load_schema",
    "normalise",
    "parse_schema",
    "validate_filters",
]
