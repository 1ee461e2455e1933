"""The sections of the ingest stages: `loader:`, `splitter:` and `ingestion:`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from ragwire.config._base import Extensions, _Section

DEFAULT_EXTENSIONS = [".pdf", ".docx", ".xlsx", ".pptx", ".txt", ".md", ".markdown", ".html", ".htm", ".csv"]


class LoaderConfig(_Section):
    """`loader:` which files are read and how the folder walk behaves."""

    extensions: Extensions = Field(default_factory=lambda: list(DEFAULT_EXTENSIONS))
    recursive: bool = False
    max_file_size_mb: float = Field(100, gt=0)
    include_hidden: bool = False
    follow_symlinks: bool = False
    max_files: int = Field(100_000, ge=1)
    # Zip-based Office files (docx/xlsx/pptx) are checked before conversion: a small
    # file that inflates to gigabytes is refused instead of exhausting memory.
    max_uncompressed_mb: float = Field(512, gt=0)
    max_compression_ratio: float = Field(100, gt=1)
    # Seconds one file's conversion may take; a stalled converter fails only that file.
    timeout_s: float = Field(300, gt=0)


class SplitterConfig(_Section):
    """`splitter:` how text is cut into chunks."""

    strategy: Literal["markdown", "recursive", "code", "page"] = "markdown"
    # 1500/300 measured best on SciFact and level on examples/docs (docs/evaluation.md)
    chunk_size: int = Field(1500, gt=0)
    chunk_overlap: int = Field(300, ge=0)
    separators: list[str] | None = None
    page_marker: str = "<!-- pagebreak -->"
    max_heading_level: int = Field(2, ge=1, le=6)

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        size = info.data.get("chunk_size")  # absent when chunk_size itself was invalid
        if size is not None and value >= size:
            raise ValueError(f"must be smaller than chunk_size (got {value} >= {size})")
        return value


class IngestionConfig(_Section):
    """`ingestion:` parallelism, batching and retries of ingest."""

    workers: int = Field(1, ge=1)
    batch_size: int = Field(64, ge=1)
    retries: int = Field(2, ge=0)
    retry_backoff: float = Field(0.5, ge=0)
    replace_changed: bool = True
    dedup_chunks: bool = False
