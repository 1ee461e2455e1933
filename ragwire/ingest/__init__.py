"""Ingestion: prepare files in parallel, embed in batches, write each file atomically."""

from .items import IngestItem, source_id
from .prepare import Prepared, make_loader, prepare_file
from .runner import IngestRunner
from .settings import IngestSettings, settings_fingerprint, vectors_fingerprint
from .stats import FileOutcome, IngestStats

__all__ = [
    "FileOutcome",
    "IngestItem",
    "IngestRunner",
    "IngestSettings",
    "IngestStats",
    "Prepared",
    "make_loader",
    "prepare_file",
    "settings_fingerprint",
    "source_id",
    "vectors_fingerprint",
]
