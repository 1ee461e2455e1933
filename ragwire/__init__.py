"""ragwire: documents in, a searchable and citable Qdrant knowledge base out, wired by one YAML file."""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING

# One public name for the config model: ``Config`` (the published API's, issue 19.14); its
# class lives in ragwire.config as RagwireConfig, which ragwire's own modules import.
from .config import RagwireConfig as Config
from .config import load_config
from .errors import (
    ConfigError,
    EvalError,
    GoldenSetError,
    IngestAborted,
    IngestError,
    LoaderError,
    MissingDependencyError,
    NotFoundError,
    ProviderError,
    RagwireError,
    RequestError,
    ServerError,
    SourceError,
    StoreError,
    StoreFullError,
    StoreLockedError,
)
from .hashing import sha256_chunk, sha256_file_from_path, sha256_text
from .lazy import lazy_names
from .logs import get_logger, setup_colored_logging, setup_logging
from .pipeline import RAGWire
from .providers import get_embedding

# LangChain's retriever machinery costs ~0.6 s to import, its text splitters ~0.15 s (a query
# needs neither); load these on first use.
_LAZY = {
    "Answer": "ragwire.answer.results",
    "Citation": "ragwire.answer.results",
    "Hit": "ragwire.retrieval.hit",
    "RetrieveOptions": "ragwire.retrieval.retriever",
    "RagwireRetriever": "ragwire.retrieval.langchain_retriever",
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

if TYPE_CHECKING:  # the lazy names, seen by type checkers (py.typed ships)
    from .answer.results import Answer, Citation
    from .loaders import MarkItDownLoader, PageLoader
    from .metadata import DocumentMetadata, FinancialMetadata, MetadataExtractor
    from .retrieval.hit import Hit
    from .retrieval.langchain_retriever import RagwireRetriever
    from .retrieval.retriever import RetrieveOptions
    from .retrieval.vectorstore import QdrantStore, get_retriever, hybrid_search, mmr_search
    from .splitting import PageSplitter, get_code_splitter, get_markdown_splitter, get_splitter
    from .sync import SyncStats


__all__ = [
    "Answer",
    "Citation",
    "Config",
    "ConfigError",
    "DocumentMetadata",
    "EvalError",
    "FinancialMetadata",
    "GoldenSetError",
    "Hit",
    "IngestAborted",
    "IngestError",
    "LoaderError",
    "MarkItDownLoader",
    "MetadataExtractor",
    "MissingDependencyError",
    "NotFoundError",
    "PageLoader",
    "PageSplitter",
    "ProviderError",
    "QdrantStore",
    "RAGWire",
    "RagwireError",
    "RagwireRetriever",
    "RequestError",
    "RetrieveOptions",
    "ServerError",
    "SourceError",
    "StoreError",
    "StoreFullError",
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
