"""Typed configuration for every section of config.yaml.

``load_config`` reads the file, expands ``${VAR}`` references and reports every problem at once.

Layout: ``loading`` (YAML, duplicate keys, ``${VAR}``), ``problems`` (one line per
validation error), ``root`` (the whole file) and one module of section models per
stage: ``ingest``, ``providers``, ``metadata``, ``store``, ``retrieval``,
``sources``, ``answer``, ``logs``.
"""

from ragwire.config._base import ConfigPath, Extensions, ModelName
from ragwire.config.answer import GenerationConfig
from ragwire.config.ingest import DEFAULT_EXTENSIONS, DEFAULT_RETRIES, IngestionConfig, LoaderConfig, SplitterConfig
from ragwire.config.loading import load_config, parse_config, parse_section
from ragwire.config.logs import LoggingConfig
from ragwire.config.metadata import MetadataConfig
from ragwire.config.providers import (
    DEFAULT_EMBEDDING_MODELS,
    DEFAULT_TIMEOUT_S,
    EMBEDDING_PROVIDERS,
    LLM_PROVIDERS,
    EmbeddingProvider,
    EmbeddingsConfig,
    LLMConfig,
    LLMPricing,
    LLMProvider,
)
from ragwire.config.retrieval import DEFAULT_RERANK_MODELS, RerankConfig, RetrieverConfig
from ragwire.config.root import RagwireConfig
from ragwire.config.sources import LocalSource, S3Source, SourceConfig
from ragwire.config.store import VectorstoreConfig

__all__ = [
    "DEFAULT_EMBEDDING_MODELS",
    "DEFAULT_EXTENSIONS",
    "DEFAULT_RETRIES",
    "DEFAULT_RERANK_MODELS",
    "DEFAULT_TIMEOUT_S",
    "EMBEDDING_PROVIDERS",
    "LLM_PROVIDERS",
    "ConfigPath",
    "EmbeddingProvider",
    "EmbeddingsConfig",
    "Extensions",
    "GenerationConfig",
    "IngestionConfig",
    "LLMConfig",
    "LLMPricing",
    "LLMProvider",
    "LoaderConfig",
    "LocalSource",
    "LoggingConfig",
    "MetadataConfig",
    "ModelName",
    "RagwireConfig",
    "RerankConfig",
    "RetrieverConfig",
    "S3Source",
    "SourceConfig",
    "SplitterConfig",
    "VectorstoreConfig",
    "load_config",
    "parse_config",
    "parse_section",
]
