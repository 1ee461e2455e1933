"""The sections of the ingest stages: `loader:`, `splitter:` and `ingestion:`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ragwire.config._base import Extensions, _Section
from ragwire.loaders import ocr as _ocr
from ragwire.loaders.formats import IMAGE_EXTENSIONS

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
    # Scanned PDF pages and images: auto is Tesseract when installed, else RapidOCR (see
    # docs/loading.md for the measurement); the page's engine, languages and dpi are part of
    # the settings fingerprint of the documents that needed OCR, and only of those.
    ocr: Literal["auto", "off", "tesseract", "rapidocr"] = "auto"
    ocr_languages: list[str] = Field(default_factory=lambda: ["eng"], min_length=1)
    ocr_dpi: int = Field(300, ge=50, le=1200)
    # Added to timeout_s for each page that is OCR'd, so a long scan gets the time it needs.
    ocr_page_timeout_s: float = Field(60, gt=0)
    # One file's OCR budget: a file with more pages to OCR is refused with one line before any
    # is read, and the time the pages add to timeout_s stops at ocr_timeout_s.
    ocr_max_pages: int = Field(200, ge=1)
    ocr_timeout_s: float = Field(1800, gt=0)

    @field_validator("ocr_languages")
    @classmethod
    def _languages_installed(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if info.data.get("ocr") not in ("auto", "tesseract") or _ocr.tesseract_binary() is None:
            return value  # checked only where Tesseract will read the pages
        installed = _ocr.tesseract_languages()
        missing = [code for code in value if code not in installed]
        if missing and installed:
            packages = " ".join(_ocr.language_package(code) for code in missing)
            raise ValueError(
                f"Tesseract has no language pack for {', '.join(missing)} — apt-get install {packages}"
                f" (installed: {', '.join(sorted(installed))})"
            )
        return value

    @model_validator(mode="after")
    def _images_when_ocr_reads_them(self) -> LoaderConfig:
        # Images are default sources only where an engine can read them.
        if "extensions" not in self.model_fields_set and self.ocr_settings().engine is not None:
            self.extensions = [*self.extensions, *(e for e in IMAGE_EXTENSIONS if e not in self.extensions)]
        return self

    def ocr_settings(self) -> _ocr.OcrSettings:
        """The loaders' OCR settings, with the engine ``ocr`` resolves to on this machine."""
        return _ocr.OcrSettings.choose(self.ocr, self.ocr_languages, self.ocr_dpi, self.ocr_page_timeout_s,
                                       max_pages=self.ocr_max_pages, file_timeout_s=self.ocr_timeout_s)


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


# Extra attempts after a retryable provider or store failure: ingestion.retries' default, and
# the default of every stage built by hand (searcher, reranker, extractor, answerer).
DEFAULT_RETRIES = 2


class IngestionConfig(_Section):
    """`ingestion:` parallelism, batching and retries of ingest."""

    workers: int = Field(1, ge=1)
    batch_size: int = Field(64, ge=1)
    retries: int = Field(DEFAULT_RETRIES, ge=0)
    retry_backoff: float = Field(0.5, ge=0)
    replace_changed: bool = True
    dedup_chunks: bool = False
