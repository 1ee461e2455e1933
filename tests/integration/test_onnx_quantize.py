"""The int8 variant (embeddings.quantize: int8): made locally, checked against fp32, never mixed with fp32 vectors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragwire import RAGWire
from ragwire.config import EmbeddingsConfig
from ragwire.errors import ConfigError, ProviderError, RagwireError
from ragwire.providers import get_embedding, onnx_export, onnx_quantize
from ragwire.providers.onnx import OnnxEmbeddings

from .helpers import as_onnx_export_version_1, write_config, write_topics

MINILM = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="session")
def int8_dir(ragwire_home: Path) -> Path:
    previous = os.environ.get("RAGWIRE_HOME")
    os.environ["RAGWIRE_HOME"] = str(ragwire_home)
    try:
        return onnx_quantize.prepare(MINILM, "int8")
    finally:
        if previous is None:
            os.environ.pop("RAGWIRE_HOME", None)
        else:
            os.environ["RAGWIRE_HOME"] = previous


def test_int8_variant_sits_beside_its_export_and_records_its_check(int8_dir):
    base = onnx_export.prepare(MINILM)
    manifest = onnx_export.read_manifest(int8_dir)
    assert int8_dir == base.with_name(base.name + "-int8")
    assert manifest["quantize"] == "int8" and manifest["recipe"]["weights"] == "int8, per output channel"
    assert onnx_quantize.MIN_COSINE <= manifest["min_cosine"] <= manifest["mean_cosine"] < 1.0
    assert manifest["weights_sha256"] == onnx_export.read_manifest(base)["weights_sha256"]
    # int8 dense weights; the 47 MB embedding table stays fp32. Both keep their weights apart.
    assert manifest["data_bytes"] == (int8_dir / onnx_export.DATA_FILE).stat().st_size
    assert manifest["data_bytes"] < 0.7 * onnx_export.read_manifest(base)["data_bytes"]


def test_int8_vectors_are_close_to_fp32_but_not_the_same(int8_dir):
    texts = ["How long does a full charge take?", "Replacement valve ZX-9981-Q fits the drip kit.",
             "Tomatoes need six hours of sun."]
    fp32 = np.asarray(get_embedding({"provider": "onnx"}).embed_documents(texts))
    int8 = np.asarray(get_embedding({"provider": "onnx", "quantize": "int8"}).embed_documents(texts))
    cos = (fp32 * int8).sum(1)
    assert cos.min() > 0.98
    assert cos.max() < 0.99999  # other vectors: hence their own identity


def test_int8_has_its_own_identity():
    fp32 = EmbeddingsConfig(provider="onnx").identity()
    int8 = EmbeddingsConfig(provider="onnx", quantize="int8").identity()
    assert fp32 == f"huggingface:{MINILM}"
    assert int8 == f"onnx-int8:{MINILM}"
    assert EmbeddingsConfig(provider="onnx", model_name="all-MiniLM-L6-v2", quantize="int8").identity() == int8


def test_an_int8_folder_given_as_model_name_keeps_the_int8_identity(int8_dir):
    assert EmbeddingsConfig(provider="onnx", model_name=str(int8_dir)).identity() == f"onnx-int8:{MINILM}"


def test_quantize_is_refused_for_providers_other_than_onnx():
    with pytest.raises(ConfigError, match="embeddings.quantize: applies to provider onnx only, not huggingface"):
        get_embedding({"provider": "huggingface", "quantize": "int8"})


def test_a_full_precision_collection_refuses_int8_vectors_and_re_embeds_on_recreate(tmp_path, int8_dir):
    docs = [str(p) for p in write_topics(tmp_path / "docs")]
    rag = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx"}))
    assert rag.ingest_documents(docs)["processed"] == len(docs)
    rag.close()
    int8 = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx", "quantize": "int8"}))
    with pytest.raises(RagwireError, match=rf"holds vectors from huggingface:{MINILM} .* embeds with onnx-int8:"):
        int8.ingest_documents(docs)
    assert int8.get_stats()["embedding_model"] == f"huggingface:{MINILM}"
    int8.close()
    recreate = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx", "quantize": "int8"},
                                    vectorstore={"force_recreate": True}))
    assert recreate.ingest_documents(docs)["processed"] == len(docs)  # every chunk embedded again
    assert recreate.get_stats()["embedding_model"] == f"onnx-int8:{MINILM}"
    assert recreate.retrieve("how long does charging take", top_k=1)[0].metadata["source"].endswith("charging.md")


def test_a_variant_below_the_threshold_is_discarded(tmp_path, monkeypatch, int8_dir):
    home = tmp_path / "home"
    base = onnx_export.prepare(MINILM)
    shutil.copytree(base, home / "onnx" / base.name)
    monkeypatch.setenv("RAGWIRE_HOME", str(home))
    monkeypatch.setattr(onnx_quantize, "MIN_COSINE", 0.99999)
    with pytest.raises(ProviderError, match=r"too far from full precision \(min cosine 0\.9\d+ < 0\.99999\)"):
        onnx_quantize.prepare(MINILM, "int8")
    assert [p.name for p in (home / "onnx").iterdir() if p.name not in (base.name, "hashes.json")] == []


def test_an_int8_variant_with_its_weights_inside_the_graph_is_upgraded_by_prepare(tmp_path, monkeypatch, int8_dir):
    home = tmp_path / "home"
    base = onnx_export.prepare(MINILM)
    shutil.copytree(base, home / "onnx" / base.name)
    variant = home / "onnx" / int8_dir.name
    shutil.copytree(int8_dir, variant)
    monkeypatch.setenv("RAGWIRE_HOME", str(home))
    texts = ["battery", "ZX-9981-Q"]
    expected = np.asarray(get_embedding({"provider": "onnx", "quantize": "int8"}).embed_documents(texts))
    as_onnx_export_version_1(variant)
    made = []
    monkeypatch.setattr(onnx_quantize, "_quantize", lambda *a: made.append(a))  # nothing may be re-quantized
    assert onnx_quantize.prepare(MINILM, "int8") == variant
    manifest = onnx_export.read_manifest(variant)
    assert made == [] and manifest["export_version"] == 2 and manifest["quantize"] == "int8"
    assert manifest["data_bytes"] == (variant / onnx_export.DATA_FILE).stat().st_size
    assert onnx_quantize.is_valid_variant(variant, "int8", manifest["weights_sha256"])
    assert np.allclose(OnnxEmbeddings(variant).embed_documents(texts), expected, atol=1e-6)
