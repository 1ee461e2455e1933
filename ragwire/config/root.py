"""`RagwireConfig`: the whole config.yaml, one field per section, and the checks across sections."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, PrivateAttr, model_validator

from ragwire.config._base import _problem, _Section
from ragwire.config.access import AccessConfig
from ragwire.config.answer import GenerationConfig
from ragwire.config.ingest import IngestionConfig, LoaderConfig, SplitterConfig
from ragwire.config.logs import LoggingConfig
from ragwire.config.metadata import MetadataConfig
from ragwire.config.providers import EmbeddingsConfig, LLMConfig
from ragwire.config.retrieval import RetrieverConfig
from ragwire.config.sources import LocalSource, SourceConfig
from ragwire.config.store import VectorstoreConfig


class RagwireConfig(_Section):
    """The whole config.yaml. Build it with `load_config` or `parse_config`."""

    loader: LoaderConfig = Field(default_factory=LoaderConfig)
    splitter: SplitterConfig = Field(default_factory=SplitterConfig)
    ingestion: IngestionConfig = Field(default_factory=IngestionConfig)
    embeddings: EmbeddingsConfig
    llm: LLMConfig | None = None
    metadata: MetadataConfig = Field(default_factory=MetadataConfig)
    vectorstore: VectorstoreConfig = Field(default_factory=VectorstoreConfig)
    retriever: RetrieverConfig = Field(default_factory=RetrieverConfig)
    sources: list[SourceConfig] = Field(default_factory=list)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    access: AccessConfig = Field(default_factory=AccessConfig)

    # set by load_config, never read from the YAML
    _source: Path | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _fill_sections(cls, data: object) -> object:
        if not isinstance(data, dict):
            return data
        # an empty section (`ingestion:` with every key commented out) means "use the defaults";
        # absent ones are validated from {} too, so that paths resolve against the config's folder
        data = {k: v for k, v in data.items() if v is not None}
        for name, field in cls.model_fields.items():
            if name not in data and field.default_factory is not None and name != "sources":
                data[name] = {}
        return data

    @model_validator(mode="after")
    def _check_sections_agree(self) -> RagwireConfig:
        if self.retriever.search_type == "hybrid" and not self.vectorstore.use_sparse:
            raise _problem(
                "retriever.search_type",
                "'hybrid' needs vectorstore.use_sparse: true (enable it, or choose similarity or mmr)",
            )
        if self.retriever.auto_filter and self.llm is None:
            raise _problem("retriever.auto_filter", "needs an llm section (filters are extracted by the LLM)")
        return self

    @model_validator(mode="after")
    def _check_sources_apart(self) -> RagwireConfig:
        # Two sources over one file store it twice (under two identities, each owned by
        # its source); one listing of the outer folder covers the inner one.
        # (One entry written twice is the sync's "same source" error, which names both.)
        roots: list[tuple[int, str, str]] = []
        for index, entry in enumerate(self.sources):
            if isinstance(entry, LocalSource):
                roots.append((index, os.path.realpath(entry.path), entry.name or str(entry.path)))
        for a, (i, outer, outer_key) in enumerate(roots):
            for j, inner, inner_key in roots[a + 1:]:
                if inner_key == outer_key:
                    continue
                if inner == outer or _inside(inner, outer) or _inside(outer, inner):
                    raise _problem(
                        "sources",
                        f"entries {i} and {j} overlap ({outer} and {inner}), so every file they "
                        "share would be stored twice; keep one entry (recursive: true covers subfolders)",
                    )
        return self

    @property
    def source(self) -> Path | None:
        """The config file this was loaded from, or None when built from a dict."""
        return self._source


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)
