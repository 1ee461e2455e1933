"""The ONNX provider: the same vectors as sentence-transformers, interchangeable collections, a safe cache."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from ragwire import RAGWire
from ragwire.errors import ProviderError
from ragwire.providers import get_embedding, onnx_export
from ragwire.providers.onnx import OnnxEmbeddings

from .helpers import TOPICS, as_onnx_export_version_1, write_config, write_topics

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
ONNX_EMBEDDINGS = {"provider": "onnx", "model_name": MINILM}


def _texts() -> list[str]:
    """50 fixed texts: short, empty-ish, non-English, code, and 12 longer than the 256-token window."""
    base = [body.split("\n\n", 1)[1] for body in TOPICS.values()]
    short = [
        "x", "   ", "E-4711", "How long does it take to charge the battery?", "naïve café façade — ünïcödé",
        "Die Batterie ist nach drei Stunden vollständig geladen.", "def f(x):\n    return x ** 2  # square",
        "| a | b |\n|---|---|\n| 1 | 2 |", "https://example.com/a?b=c&d=e", "1234567890 " * 5,
        "Q: what is the warranty? A: two years.", "🙂 emoji and symbols ©®™", "SELECT * FROM t WHERE id = 3;",
        "ZX-9981-Q", "tomatoes", "The status light turns green.", "Ünïcödé only", "a b c d e f g",
    ]
    pairs = [f"{a} {b}" for a, b in zip(base, base[1:] + base[:1])]
    longs = [" ".join([base[i % len(base)], base[(i + 3) % len(base)]] * (4 + i)) for i in range(12)]
    texts = short + base + pairs + longs
    assert len(texts) == 50
    return texts


@pytest.fixture(scope="session")
def onnx_dir(ragwire_home: Path) -> Path:
    import os

    previous = os.environ.get("RAGWIRE_HOME")
    os.environ["RAGWIRE_HOME"] = str(ragwire_home)
    try:
        return onnx_export.prepare(MINILM)
    finally:
        if previous is None:
            os.environ.pop("RAGWIRE_HOME", None)
        else:
            os.environ["RAGWIRE_HOME"] = previous


def test_onnx_vectors_match_sentence_transformers_on_50_texts(onnx_dir):
    from sentence_transformers import SentenceTransformer

    texts = _texts()
    st = SentenceTransformer(str(onnx_export.source_folder(MINILM)), device="cpu")
    onnx = OnnxEmbeddings(onnx_dir, batch_size=8)
    # The window is read from the model's sentence_bert_config.json, and the long texts exceed it.
    assert onnx.max_length == st.max_seq_length == 256
    onnx._load()
    assert sum(len(e.ids) >= 256 for e in onnx._tokenizer.encode_batch(texts)) >= 12
    expected = st.encode(texts, convert_to_numpy=True, show_progress_bar=False)
    got = np.asarray(onnx.embed_documents(texts))
    cosine = (expected * got).sum(1) / (np.linalg.norm(expected, axis=1) * np.linalg.norm(got, axis=1))
    assert cosine.min() >= 0.9999
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)  # the Normalize module
    assert onnx.embed_query(texts[3]) == pytest.approx(got[3].tolist(), abs=1e-6)


def test_export_manifest_records_source_hash_and_check(onnx_dir):
    manifest = json.loads((onnx_dir / onnx_export.MANIFEST).read_text())
    digest = onnx_export.weights_hash(onnx_export.source_folder(MINILM))
    assert onnx_dir.name == f"all-MiniLM-L6-v2-{digest[:12]}"
    assert onnx_dir.parent == onnx_export.ragwire_home() / "onnx"
    assert manifest["weights_sha256"] == digest and manifest["min_cosine"] >= 0.9999


def test_an_export_keeps_its_weights_in_a_file_apart_from_the_graph(onnx_dir):
    manifest = onnx_export.read_manifest(onnx_dir)
    graph, weights = onnx_dir / onnx_export.ONNX_FILE, onnx_dir / onnx_export.DATA_FILE
    assert manifest["export_version"] == onnx_export.EXPORT_VERSION == 2
    assert (manifest["onnx_bytes"], manifest["data_bytes"]) == (graph.stat().st_size, weights.stat().st_size)
    # The graph is a small index into the weights file, which ONNX Runtime maps into memory.
    assert graph.stat().st_size < 1_000_000 < 80_000_000 < weights.stat().st_size


@pytest.mark.parametrize(("first", "second"), [("huggingface", "onnx"), ("onnx", "huggingface")])
def test_a_collection_ingested_with_one_runtime_opens_and_searches_with_the_other(tmp_path, onnx_dir, first, second):
    docs = write_topics(tmp_path / "docs")
    queries = ["how long does charging take", "ZX-9981-Q", "bread baking temperature"]
    rag = RAGWire(write_config(tmp_path, embeddings={"provider": first}))
    assert rag.ingest_documents([str(p) for p in docs])["processed"] == len(docs)
    before = [[d.metadata.get("chunk_id") or d.page_content for d in rag.retrieve(q, top_k=3)] for q in queries]
    rag.close()
    config = write_config(tmp_path, embeddings={"provider": second})
    other = RAGWire(config)
    after = [[d.metadata.get("chunk_id") or d.page_content for d in other.retrieve(q, top_k=3)] for q in queries]
    assert after == before
    # Same model, same vectors: switching runtime re-embeds nothing.
    stats = other.ingest_documents([str(p) for p in docs])
    assert stats["processed"] == 0
    assert other.get_stats()["embedding_model"] == f"huggingface:{MINILM}"


def test_another_model_is_still_refused_by_name(tmp_path, onnx_dir):
    docs = write_topics(tmp_path / "docs")
    rag = RAGWire(write_config(tmp_path, embeddings={"provider": "onnx"}))
    rag.ingest_documents([str(docs[0])])
    rag.close()
    other = tmp_path / "other-model"  # an ONNX folder without a manifest: named by its path
    other.mkdir()
    for fname in (onnx_export.ONNX_FILE, onnx_export.DATA_FILE, "tokenizer.json"):
        shutil.copyfile(onnx_dir / fname, other / fname)
    config = write_config(tmp_path, embeddings={"provider": "onnx", "model_name": str(other)})
    with pytest.raises(Exception, match=r"holds vectors from huggingface:sentence-transformers/all-MiniLM-L6-v2"):
        RAGWire(config).retrieve("battery", top_k=1)


def _copy_export(onnx_dir: Path, home: Path) -> Path:
    target = home / "onnx" / onnx_dir.name
    shutil.copytree(onnx_dir, target)
    return target


@pytest.mark.parametrize("damaged", [onnx_export.ONNX_FILE, onnx_export.DATA_FILE])
def test_a_corrupt_export_is_rebuilt_on_first_use(tmp_path, monkeypatch, onnx_dir, damaged):
    # Guards against a truncated graph or weights file (a crash of an old copy) being loaded as it is.
    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))
    target = _copy_export(onnx_dir, tmp_path / "home")
    (target / damaged).write_bytes(b"truncated")
    built = []

    def fake_prepare(name, *, force=False):
        built.append((name, force))
        shutil.rmtree(target)
        return _copy_export(onnx_dir, tmp_path / "home")

    monkeypatch.setattr(onnx_export, "prepare", fake_prepare)
    emb = get_embedding(ONNX_EMBEDDINGS)
    assert built == [(MINILM, True)]
    assert len(emb.embed_query("battery")) == 384


def test_an_export_with_its_weights_inside_the_graph_is_used_by_a_query_and_upgraded_by_prepare(
    tmp_path, monkeypatch, onnx_dir
):
    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))
    target = _copy_export(onnx_dir, tmp_path / "home")
    expected = OnnxEmbeddings(onnx_dir).embed_documents(["battery", "ZX-9981-Q"])
    as_onnx_export_version_1(target)
    monkeypatch.setattr(onnx_export, "can_build", lambda: False)  # nothing may be rebuilt
    # A query uses the old layout as it is: same vectors, nothing written.
    assert onnx_export.cached_export(MINILM) == target
    assert not (target / onnx_export.DATA_FILE).exists()
    assert OnnxEmbeddings(target).embed_documents(["battery", "ZX-9981-Q"]) == expected
    # `ragwire model prepare` stores the weights apart, checked against the old file; nothing is re-exported.
    out = subprocess.run([sys.executable, "-m", "ragwire.cli", "model", "prepare"],
                         capture_output=True, text=True, check=True)
    assert str(target) in out.stdout
    manifest = onnx_export.read_manifest(target)
    assert manifest["export_version"] == 2
    assert manifest["data_bytes"] == (target / onnx_export.DATA_FILE).stat().st_size
    assert onnx_export.is_valid_export(target, manifest["weights_sha256"])
    assert np.allclose(OnnxEmbeddings(target).embed_documents(["battery", "ZX-9981-Q"]), expected, atol=1e-6)
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []


def test_an_upgrade_that_fails_keeps_the_old_export_in_use(tmp_path, monkeypatch, onnx_dir, caplog):
    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))
    target = _copy_export(onnx_dir, tmp_path / "home")
    as_onnx_export_version_1(target)
    before = (target / onnx_export.ONNX_FILE).read_bytes()

    def disk_full(folder):
        (folder / onnx_export.DATA_FILE).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(onnx_export, "store_weights_apart", disk_full)
    assert onnx_export.prepare(MINILM) == target
    assert onnx_export.read_manifest(target)["export_version"] == 1
    assert (target / onnx_export.ONNX_FILE).read_bytes() == before
    assert not (target / onnx_export.DATA_FILE).exists()
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".")] == []
    assert "could not upgrade the ONNX export" in caplog.text and "No space left on device" in caplog.text


def test_a_missing_export_without_torch_names_the_command_that_builds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(onnx_export, "can_build", lambda: False)
    with pytest.raises(ProviderError, match=r"ONNX export of .* is missing .*build it with: ragwire model prepare$"):
        get_embedding(ONNX_EMBEDDINGS)


def test_a_failed_export_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))

    def crash(folder, out):
        (out / onnx_export.ONNX_FILE).write_bytes(b"half")
        raise ProviderError("vectors differ")

    monkeypatch.setattr(onnx_export, "_export", crash)
    with pytest.raises(ProviderError, match="vectors differ"):
        onnx_export.prepare(MINILM)
    assert [p.name for p in (tmp_path / "home" / "onnx").iterdir()] == ["hashes.json"]


def test_the_weights_hash_is_remembered_until_the_file_changes(tmp_path, monkeypatch):
    import hashlib
    import os

    monkeypatch.setenv("RAGWIRE_HOME", str(tmp_path / "home"))
    weights = tmp_path / "model" / "model.safetensors"
    weights.parent.mkdir()
    weights.write_bytes(b"one")
    assert onnx_export.weights_hash(weights.parent) == hashlib.sha256(b"one").hexdigest()
    weights.write_bytes(b"two")
    os.utime(weights, ns=(1, 1))
    assert onnx_export.weights_hash(weights.parent) == hashlib.sha256(b"two").hexdigest()
    assert onnx_export.weights_hash(weights.parent) == hashlib.sha256(b"two").hexdigest()


def test_model_prepare_command_reports_the_cached_export(onnx_dir):
    out = subprocess.run([sys.executable, "-m", "ragwire.cli", "model", "prepare"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        f"{MINILM}: ONNX export ready at {onnx_dir} (min cosine vs sentence-transformers 1.000000)"
    )


@pytest.mark.parametrize("command", ["retrieve", "query"])
def test_a_cli_search_with_the_onnx_provider_imports_neither_torch_nor_sentence_transformers(
    tmp_path, onnx_dir, command
):
    docs = write_topics(tmp_path / "docs")
    config = write_config(tmp_path, embeddings={"provider": "onnx"})
    RAGWire(config).ingest_documents([str(p) for p in docs])
    code = (
        "import sys\n"
        "from ragwire.cli import main\n"
        f"try:\n    main([{command!r}, 'How many hours of sun do tomatoes need?', '--config', {str(config)!r}, '-k', '1'])\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers')\n"
        "print('HEAVY=' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
        # Cold-start guard: these cost a fresh process ~0.25 s and the search path needs none of them.
        "slow = ('langchain_core.embeddings', 'langchain_core.runnables', 'asyncio', 'markitdown',\n"
        "        'ragwire.loaders.markitdown_loader')\n"
        "print('SLOW=' + ','.join(m for m in slow if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "garden.md" in out.stdout
    assert out.stdout.strip().splitlines()[-2:] == ["HEAVY=", "SLOW="]


def test_the_onnx_embedder_is_a_langchain_embeddings_once_langchain_is_loaded(onnx_dir):
    from langchain_core.embeddings import Embeddings

    emb = get_embedding({"provider": "onnx"})
    assert isinstance(emb, Embeddings)
    assert asyncio.run(emb.aembed_query("tomatoes")) == emb.embed_query("tomatoes")


def test_unknown_provider_suggests_onnx():
    from ragwire.config import parse_config
    from ragwire.errors import ConfigError

    with pytest.raises(ConfigError, match=r"did you mean 'onnx'"):
        parse_config(yaml.safe_load("embeddings: {provider: onx}"), base_dir=".")


def _own_export(tmp_path: Path, onnx_dir: Path) -> Path:
    """A copy of the export under its own path: a model no earlier test loaded in this process."""
    folder = tmp_path / "export"
    shutil.copytree(onnx_dir, folder)
    return folder


def test_a_query_loads_the_onnx_model_in_a_thread_while_the_store_opens(tmp_path, monkeypatch, onnx_dir):
    import threading
    import time

    from ragwire.store.edge import EdgeEngine

    docs = write_topics(tmp_path / "docs")
    config = write_config(tmp_path, embeddings={"provider": "onnx", "model_name": str(_own_export(tmp_path, onnx_dir))})
    rag = RAGWire(config)
    rag.ingest_documents([str(p) for p in docs])
    rag.close()

    events: list[tuple[str, str, float]] = []
    model_load, store_load = OnnxEmbeddings._load, EdgeEngine._load

    def timed_model_load(self):
        events.append(("model starts", threading.current_thread().name, time.perf_counter()))
        model_load(self)

    def timed_store_load(self):
        store_load(self)
        events.append(("store open", threading.current_thread().name, time.perf_counter()))

    monkeypatch.setattr(OnnxEmbeddings, "_load", timed_model_load)
    monkeypatch.setattr(EdgeEngine, "_load", timed_store_load)
    answer = RAGWire(config).query("How many hours of sun do tomatoes need?")
    assert answer and "garden.md" in str(answer.sources)
    first = {what: (thread, at) for what, thread, at in reversed(events)}
    assert first["model starts"][0] == "ragwire-embedding-load"
    assert first["store open"][0] == "MainThread"
    assert first["model starts"][1] < first["store open"][1]  # the two overlapped
    assert not [t for t in threading.enumerate() if t.name == "ragwire-embedding-load"]


def test_a_model_that_fails_to_load_in_the_background_raises_typed_on_first_use(tmp_path, monkeypatch, onnx_dir):
    from ragwire import components

    docs = write_topics(tmp_path / "docs")
    export = _own_export(tmp_path, onnx_dir)
    config = write_config(tmp_path, embeddings={"provider": "onnx", "model_name": str(export)})
    rag = RAGWire(config)
    rag.ingest_documents([str(docs[0])])
    rag.close()
    (export / onnx_export.ONNX_FILE).write_bytes(b"damaged after the ingest")
    monkeypatch.setattr(components, "_EMBEDDINGS", {})  # as in a new process: nothing loaded yet
    with pytest.raises(ProviderError, match=r"could not load the ONNX model"):
        RAGWire(config).query("How many hours of sun do tomatoes need?")


def test_a_keyword_only_config_loads_no_model_for_a_search(tmp_path, monkeypatch, onnx_dir):
    import threading

    docs = write_topics(tmp_path / "docs")
    config = write_config(tmp_path, embeddings={"provider": "onnx", "model_name": str(_own_export(tmp_path, onnx_dir))},
                          retriever={"search_type": "keyword"})
    RAGWire(config).ingest_documents([str(docs[0])])
    fresh = RAGWire(config)
    started = []
    original = threading.Thread.start

    def spy(self):
        started.append(self.name)
        original(self)

    monkeypatch.setattr(threading.Thread, "start", spy)
    assert fresh.retrieve("tomatoes")
    assert "ragwire-embedding-load" not in started
    assert fresh.parts._embedding is None
