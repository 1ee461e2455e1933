"""The bulk-runtime chooser: a calibration cached per machine and model, the same vectors, ONNX when torch is absent."""

from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest

from ragwire import RAGWire
from ragwire.config import EmbeddingsConfig
from ragwire.providers import bulk, get_embedding

from .helpers import write_config, write_topics

TEXTS = [
    "How long does a full charge take?",
    "Replacement valve ZX-9981-Q fits the drip irrigation kit.",
    "Tomatoes need six hours of sun and deep watering twice a week.",
    " ".join(["Bake the bread at 220 degrees for forty minutes until the crust is dark."] * 30),
    "x",
]


@pytest.fixture(autouse=True)
def _no_calibration_yet(ragwire_home):
    """RAGWIRE_HOME is shared by the session (the ONNX export is built once); its calibrations are not."""
    shutil.rmtree(ragwire_home / "runtime", ignore_errors=True)


@pytest.fixture
def small_calibration(monkeypatch):
    """A short calibration and an early switch, so a test needs few texts to reach the choice."""
    monkeypatch.setattr(bulk, "CALIBRATION_TEXTS", bulk.CALIBRATION_TEXTS[:6])
    monkeypatch.setattr(bulk, "ROUNDS", 1)
    monkeypatch.setattr(bulk, "SWITCH_AFTER", 2)
    calls = []
    real = bulk.calibrate

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(bulk, "calibrate", counting)
    return calls


def test_the_calibration_is_written_once_and_reused(small_calibration):
    section = EmbeddingsConfig(provider="onnx")
    onnx = get_embedding({"provider": "onnx"})
    first = bulk.bulk_embedder(section, onnx)
    assert isinstance(first, bulk.BulkEmbedder)
    first.embed_documents(TEXTS[:2])
    assert small_calibration == [] and first.runtime == "onnx"  # a small run never loads torch
    first.embed_documents(TEXTS)
    assert small_calibration == [1]
    record = json.loads(bulk.cache_path(section).read_text())
    assert record["choice"] in ("onnx", "torch") and record["min_cosine"] >= bulk.MATCH_COSINE
    assert record["onnx_texts_per_s"] > 0 and record["torch_texts_per_s"] > 0
    assert first.runtime == record["choice"]
    second = bulk.bulk_embedder(section, onnx)
    second.embed_documents(TEXTS)
    assert small_calibration == [1]  # read from the cache, not measured again
    assert second.runtime == record["choice"]


def test_the_cache_is_per_machine_and_model(monkeypatch):
    section = EmbeddingsConfig(provider="onnx")
    key = bulk.machine_key(section)
    monkeypatch.setattr(bulk, "cpu_signature", lambda: {"machine": "x86_64", "model": "Other CPU", "flags": "avx2"})
    assert bulk.machine_key(section) != key


def test_the_chosen_runtime_gives_the_vectors_of_onnx(small_calibration):
    section = EmbeddingsConfig(provider="onnx")
    onnx = get_embedding({"provider": "onnx"})
    path = bulk.cache_path(section)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"choice": "torch", "onnx_texts_per_s": 1.0, "torch_texts_per_s": 2.0}))
    chooser = bulk.bulk_embedder(section, onnx)
    got = np.asarray(chooser.embed_documents(TEXTS))
    assert chooser.runtime == "torch" and small_calibration == []
    expected = np.asarray(onnx.embed_documents(TEXTS))
    assert (got * expected).sum(1).min() >= 0.9999
    assert chooser.embed_query(TEXTS[0]) == onnx.embed_query(TEXTS[0])  # queries stay on ONNX


def test_an_ingest_on_torch_stores_vectors_onnx_queries_find(tmp_path, monkeypatch):
    monkeypatch.setenv(bulk.ENV, "torch")
    docs = [str(p) for p in write_topics(tmp_path / "docs")]
    rag = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx"}))
    assert rag.ingest_documents(docs)["processed"] == len(docs)
    assert rag.parts.bulk_embedding.runtime == "torch"
    top = rag.retrieve("how long does charging take", top_k=1, search_type="similarity")
    assert top[0].metadata["source"].endswith("charging.md")
    assert rag.get_stats()["embedding_model"] == "huggingface:sentence-transformers/all-MiniLM-L6-v2"


@pytest.mark.parametrize("how", ["torch blocked", "RAGWIRE_BULK_RUNTIME=onnx"])
def test_without_torch_queries_and_ingest_use_onnx(tmp_path, monkeypatch, how):
    if how == "torch blocked":
        # an import of torch now fails as if it were not installed
        monkeypatch.setitem(sys.modules, "torch", None)
        monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    else:
        monkeypatch.setenv(bulk.ENV, "onnx")
    monkeypatch.setattr(bulk, "SWITCH_AFTER", 0)
    monkeypatch.setattr(bulk, "calibrate", lambda *a, **k: pytest.fail("calibrated without torch"))
    docs = [str(p) for p in write_topics(tmp_path / "docs")]
    rag = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx"}))
    assert rag.ingest_documents(docs)["processed"] == len(docs)
    assert not isinstance(rag.parts.bulk_embedding, bulk.BulkEmbedder)
    assert rag.retrieve("how long does charging take", top_k=1)[0].metadata["source"].endswith("charging.md")
    assert not bulk.cache_path(EmbeddingsConfig(provider="onnx")).exists()
