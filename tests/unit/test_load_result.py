"""Loaders hand ingestion a typed result; the spec's result dict is built from it only by ``load()``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragwire.errors import LoaderError
from ragwire.ingest.stats import FileOutcome, IngestStats
from ragwire.loaders import Loaded, LoadFailed, MarkItDownLoader, PageLoader
from ragwire.loaders.page_loader import PageMapLoader


@pytest.mark.parametrize("loader_class", [MarkItDownLoader, PageLoader, PageMapLoader])
def test_a_loaded_file_keeps_text_pages_and_type_and_load_is_its_dict(loader_class, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nBelt tension is 40 N.\n")
    loader = loader_class()
    outcome = loader.load_outcome(path)
    assert isinstance(outcome, Loaded) and outcome.ok
    assert (outcome.text.strip(), outcome.pages, outcome.file_type) == ("# Notes\n\nBelt tension is 40 N.", None, "md")
    assert loader.load(path) == outcome.to_dict(with_pages=loader_class is not MarkItDownLoader)


@pytest.mark.parametrize("loader_class", [MarkItDownLoader, PageLoader, PageMapLoader])
def test_a_failure_keeps_the_exception_and_load_keeps_its_one_line(loader_class, tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4 this is not really a pdf")
    loader = loader_class()
    outcome = loader.load_outcome(path)
    assert isinstance(outcome, LoadFailed) and not outcome.ok
    assert type(outcome.error) is LoaderError and outcome.retryable is False
    assert outcome.message.startswith("broken.pdf: ") and "\n" not in outcome.message
    result = loader.load(path)
    assert (result["success"], result["text_content"], result["error"]) == (False, None, outcome.message)
    assert ("pages" in result) is (loader_class is not MarkItDownLoader)


def test_retryable_comes_from_the_error():
    failed = LoadFailed(Path("a.txt"), LoaderError("a.txt: busy", retryable=True))
    assert failed.retryable is True and failed.file_type == "txt" and failed.message == "a.txt: busy"


def test_a_failed_outcome_keeps_its_error_type_and_retryable_in_the_stats_dict():
    stats = IngestStats(total=2)
    stats.record(FileOutcome("/d/a.pdf", "failed", "a.pdf: encrypted PDF", "LoaderError", False))
    stats.record(FileOutcome("/d/b.md", "failed", "b.md: embedding timed out", "ProviderError", True))
    assert stats.to_dict()["errors"] == [
        {"file": "/d/a.pdf", "error": "a.pdf: encrypted PDF", "error_type": "LoaderError", "retryable": False},
        {"file": "/d/b.md", "error": "b.md: embedding timed out", "error_type": "ProviderError", "retryable": True},
    ]
