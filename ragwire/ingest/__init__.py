"""Ingestion: prepare files in parallel, embed in batches, write each file atomically."""

from .prepare import Prepared, SplitSettings, prepare_file
from .runner import IngestRunner, IngestSettings, new_stats, source_id

__all__ = ["IngestRunner", "IngestSettings", "Prepared", "SplitSettings", "new_stats", "prepare_file", "source_id"]
