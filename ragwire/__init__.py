"""ragwire: documents in, a searchable and citable Qdrant knowledge base out, wired by one YAML file."""

from __future__ import annotations

__version__ = "0.1.0"

from .config import RagwireConfig, load_config
from .errors import (
    ConfigError,
    EvalError,
    IngestAborted,
    IngestError,
    LoaderError,
    MissingDependencyError,
    ProviderError,
    RagwireError,
    SourceError,
    StoreError,
    StoreLockedError,
)
from .hashing import sha256_chunk, sha256_file_from_path, sha256_text
from .lazy import lazy_names
from .logs import get_logger, setup_colored_logging, setup_logging
from .pipeline import RAGWire
from .providers import get_embedding

# The published API names the config model ``Config``.
Config = RagwireConfig

# LangChain's retriever machinery costs ~0.6 s to import, its text splitters ~0.15 s (a query
# needs neither); load these on first use.
_LAZY = {
    "MarkItDownLoader": "ragwire.loaders",
    "PageLoader": "ragwire.loaders",
    "PageSplitter": "ragwire.splitting",
    "get_code_splitter": "ragwire.splitting",
    "get_markdown_splitter": "ragwire.splitting",
    "get_splitter": "ragwire.splitting",
    "QdrantStore": "ragwire.retrieval.vectorstore",
    "get_retriever": "ragwire.retrieval.vectorstore",
    "hybrid_search": "ragwire.retrieval.vectorstore",
    "mmr_search": "ragwire.retrieval.vectorstore",
    "SyncStats": "ragwire.sync",
    "DocumentMetadata": "ragwire.metadata",
    "FinancialMetadata": "ragwire.metadata",
    "MetadataExtractor": "ragwire.metadata",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "Config",
    "ConfigError",
    "DocumentMetadata",
    "EvalError",
    "FinancialMetadata",
    "IngestAborted",
    "IngestError",
    "LoaderError",
    "MarkItDownLoader",
    "MetadataExtractor",
    "MissingDependencyError",
    "PageLoader",
    "PageSplitter",
    "QdrantStore",
    "ProviderError",
    "RAGWire",
    "RagwireConfig",
    "RagwireError",
    "SourceError",
    "StoreError",
    "StoreLockedError",
    "SyncStats",
    "__version__",
    "get_code_splitter",
    "get_embedding",
    "get_logger",
    "get_markdown_splitter",
    "get_retriever",
    "get_splitter",
    "hybrid_search",
    "load_config",
    "mmr_search",
    "setup_colored_logging",
    "setup_logging",
    "sha256_chunk",
    "sha256_file_from_path",
    "sha256_text",
]
