"""One pipeline's metadata: the schema it extracts, the hook ingest calls, filters at query time.

``RAGWire`` delegates here, so the facade stays a list of one-line methods.  The
schema comes from ``metadata.config_file`` (``metadata.yaml``) or, without one,
the built-in :class:`~ragwire.metadata.FinancialMetadata`.  Extraction needs an
``llm`` section and ``metadata.enabled``; without them every chunk is tagged
``metadata_status: "skipped"`` and only the file properties are stored.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..errors import ProviderError
from ..providers.usage import Usage
from .extractor import MetadataExtractor
from .filters import extract_filters, filter_context
from .schema import FinancialMetadata, MetadataSchema
from .schema_file import load_schema
from .values import FieldValues

if TYPE_CHECKING:
    from ..config import RagwireConfig
    from ..stages import ChatModel
    from ..store import Collection

log = logging.getLogger("ragwire.metadata")

# What a file says about itself, stored on every chunk without an LLM (see properties.py).
PROPERTY_FIELDS = ("title", "author", "created", "modified", "year", "page_count", "language")


@dataclass
class Extraction:
    """One document's LLM metadata: the values, whether the call succeeded, and what it used.

    ``usage`` counts every attempt sent (a failed extraction's too) and is priced by
    ``llm.pricing``; an ingest sums it into ``metadata_usage``.
    """

    values: dict[str, Any]
    ok: bool
    usage: Usage = field(default_factory=Usage)


# A hook for ingest: document text → its Extraction.
Hook = Callable[[str], Extraction]

# A value of each schema type, for indexing a field by its declared type before any is stored.
_INDEX_SAMPLE = {"str": "x", "list[str]": ["x"], "int": 0, "list[int]": [0], "float": 0.5, "bool": False}


def schema_of(config: RagwireConfig) -> MetadataSchema:
    """The schema the config asks for: its metadata.yaml, else the built-in default."""
    path = config.metadata.config_file
    return load_schema(path) if path is not None else MetadataSchema.from_model(FinancialMetadata)


def extraction_on(config: RagwireConfig) -> bool:
    return config.llm is not None and config.metadata.enabled


def metadata_fingerprint(config: RagwireConfig) -> str:
    """What shapes the stored metadata: the schema, the model and how much text it reads.

    Part of the ingest settings fingerprint, so a changed metadata.yaml or model
    re-extracts on the next ingest (vectors are reused: the chunk texts did not change).
    """
    llm = config.llm
    if not extraction_on(config) or llm is None:
        return "none"
    data = {"schema": schema_of(config).fingerprint, "provider": llm.provider, "model": llm.model,
            "max_chars": config.metadata.max_chars}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


class MetadataService:
    """Metadata extraction and filter helpers for one pipeline.

    Args:
        config: the loaded :class:`~ragwire.config.RagwireConfig`.
        llm: A factory returning the chat model (built on first use, only when extraction
            runs); None without an ``llm`` section.
        values: Reads the values already stored per field.
    """

    def __init__(self, config: RagwireConfig, llm: Callable[[], ChatModel | None], values: FieldValues) -> None:
        self.config = config
        self._llm = llm
        self.values = values
        self._schema: MetadataSchema | None = None
        self._extractor: MetadataExtractor | None = None

    @property
    def enabled(self) -> bool:
        return extraction_on(self.config)

    @property
    def schema(self) -> MetadataSchema:
        if self._schema is None:
            self._schema = schema_of(self.config)
        return self._schema

    @property
    def extractor(self) -> MetadataExtractor:
        from ..errors import ConfigError

        needs_llm = "llm: metadata extraction needs an llm section (and metadata.enabled: true); see docs/metadata.md"
        if not self.enabled:
            raise ConfigError(needs_llm)
        if self._extractor is None:
            llm = self._llm()
            if llm is None:  # enabled means an llm section, so the factory builds one
                raise ConfigError(needs_llm)
            self._extractor = MetadataExtractor(
                llm, schema=self.schema, max_chars=self.config.metadata.max_chars,
                retries=self.config.ingestion.retries,
            )
        return self._extractor

    def stored_values(self, limit: int = 50) -> dict[str, list[Any]]:
        """Values already stored for the schema's fields, to ground the LLM on."""
        return self.values.field_values(self.schema.names, limit)

    def prepare_ingest(self, coll: Collection) -> Hook | None:
        """Ready an open collection for a run and return its hook (None without an LLM).

        Grounding values are read once per run, here: the hook runs in worker threads,
        which never touch the store.  Every schema field is indexed now, typed by the
        schema rather than by the first value a document happens to give.
        """
        if not self.enabled:
            return None
        fields = self.schema.fields
        # Only text needs grounding ("Apple Inc." vs "apple"); numbers have one spelling.
        text_fields = [f.name for f in fields if f.type in ("str", "list[str]")] if coll.count() else []
        hook = self.ingest_hook({name: coll.facet(name, 50) for name in text_fields})
        coll.ensure_indexes({f.name: _INDEX_SAMPLE[f.type] for f in fields if f.type in _INDEX_SAMPLE})
        return hook

    def ingest_hook(self, stored: Mapping[str, Sequence[Any]] | None) -> Hook | None:
        """What ingest calls once per document (in its worker threads), or None without an LLM.

        A failed extraction never fails the document: it is stored without the fields,
        tagged ``metadata_status: "failed"``, and repaired by the next ingest.
        """
        if not self.enabled:
            return None
        extractor = self.extractor
        pricing = self.config.llm.pricing if self.config.llm is not None else None

        def extract(text: str) -> Extraction:
            # One tally per document: the hook runs in several threads at once.
            usage = Usage()
            try:
                found = Extraction(extractor.extract(text, stored, usage=usage), True, usage)
            except ProviderError as exc:
                log.warning("metadata extraction failed, document stored without it: %s", exc)
                found = Extraction({}, False, usage)
            usage.price(pricing)
            return found

        return extract

    def extract(self, text: str) -> dict[str, Any]:
        """The schema's fields from ``text``, grounded on the stored values."""
        return self.extractor.extract(text, self.stored_values())

    def filters(self, query: str, usage: Usage | None = None) -> dict[str, Any] | None:
        """Filters the query asks for, kept only where they match stored values.

        ``usage``, when given, gets the LLM call's tokens and attempts added.
        """
        return extract_filters(self.extractor, query, self.stored_values(), usage=usage)

    def context(self, query: str, fields: list[str], limit: int = 50) -> str:
        """The markdown filter context block for an agent."""
        values = self.values.field_values(fields, limit)
        extracted = self.filters(query) if self.enabled else None
        return filter_context(fields, values, extracted, limit=limit)
