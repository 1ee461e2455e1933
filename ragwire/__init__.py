"""ragwire: documents in, a searchable and citable Qdrant knowledge base out, wired by one YAML file."""

from __future__ import annotations

__version__ = "0.1.0"

from .config import RagwireConfig, load_config
from .errors import (
    ConfigError,
    IngestError,
    LoaderError,
    MissingDependencyError,
    ProviderError,
    RagwireError,
    StoreError,
    StoreLockedError,
)
from .hashing import sha256_chunk, sha256_file_from_path, sha256_text
from .loaders import MarkItDownLoader, PageLoader
from .logs import get_logger, setup_colored_logging, setup_logging
from .pipeline import RAGWire
from .providers import get_embedding
from .splitting import PageSplitter, get_code_splitter, get_markdown_splitter, get_splitter

__all__ = [
    "ConfigError",
    "IngestError",
    "LoaderError",
    "MarkItDownLoader",
    "MissingDependencyError",
    "PageLoader",
    "PageSplitter",
    "ProviderError",
    "RAGWire",
    "RagwireConfig",
    "RagwireError",
    "StoreError",
    "StoreLockedError",
    "__version__",
    "get_code_splitter",
    "get_embedding",
    "get_logger",
    "get_markdown_splitter",
    "get_splitter",
    "load_config",
    "setup_colored_logging",
    "setup_logging",
    "sha256_chunk",
    "sha256_file_from_path",
    "sha256_text",
]
