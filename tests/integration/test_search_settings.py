"""Hybrid fusion settings, HNSW depth and score labels, end to end through RAGWire on the real engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main

from .helpers import TOPICS, write_config


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("search-settings")
    docs = root / "docs"
    docs.mkdir()
    for name, text in TOPICS.items():
        (docs / name).write_text(text, encoding="utf-8")
    config = write_config(root)
    assert RAGWire(config).ingest_directory(docs)["failed"] == 0
    return config


def _with_retriever(config: Path, tmp_path: Path, **retriever) -> RAGWire:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["retriever"] = {**data.get("retriever", {}), **retriever}
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return RAGWire(path)


def test_every_result_says_what_kind_of_score_it_carries(store, tmp_path):
    rag = RAGWire(store)
    kinds = {st: {d.metadata["score_type"] for d in rag.retrieve("battery warranty", top_k=3, search_type=st)}
             for st in ("similarity", "mmr", "keyword", "hybrid")}
    assert kinds == {"similarity": {"cosine"}, "mmr": {"cosine"}, "keyword": {"bm25"}, "hybrid": {"dbsf"}}
    rrf = _with_retriever(store, tmp_path, fusion="rrf").retrieve("battery warranty", top_k=3)
    assert {d.metadata["score_type"] for d in rrf} == {"rrf"}


def test_fused_scores_never_exceed_the_stated_maximum(store, tmp_path):
    for retriever in ({}, {"fusion": "rrf"}, {"fusion": "rrf", "rrf_k": 5, "dense_weight": 2.0}):
        docs = _with_retriever(store, tmp_path, **retriever).retrieve("ZX-9981-Q irrigation valve", top_k=5)
        assert docs
        for doc in docs:
            assert 0 < doc.metadata["score"] <= doc.metadata["score_max"] + 1e-6
        # the query names both the identifier and the topic: one chunk is first in both branches.
        # RRF then gives exactly the maximum; DBSF reaches it only for a hit 3 deviations clear of the rest.
        share = docs[0].metadata["score"] / docs[0].metadata["score_max"]
        assert share > (0.99 if docs[0].metadata["score_type"] == "rrf" else 0.5)


def test_exact_and_hnsw_ef_settings_reach_the_engine_and_agree_on_a_small_collection(store, tmp_path):
    query = "what should I do with a swollen battery"
    approx = [d.id for d in _with_retriever(store, tmp_path, hnsw_ef=16).retrieve(query, top_k=5, search_type="similarity")]
    exact = [d.id for d in _with_retriever(store, tmp_path, exact=True).retrieve(query, top_k=5, search_type="similarity")]
    assert approx == exact


def test_a_branch_prefetch_of_one_limits_what_hybrid_can_return(store, tmp_path):
    rag = _with_retriever(store, tmp_path, dense_prefetch=1, sparse_prefetch=1)
    # top_k raises each branch to at least top_k, so ask for one: at most two candidates are fused
    assert len(rag.retrieve("battery", top_k=1)) == 1
    wide = _with_retriever(store, tmp_path, fetch_k=30).retrieve("battery", top_k=8)
    assert len(wide) == 8


def test_the_cli_prints_fused_scores_as_a_share_of_the_best(store):
    result = CliRunner().invoke(main, ["retrieve", "ZX-9981-Q irrigation valve", "--config", str(store), "-k", "2"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert "garden.md" in first and "fused " in first and "(dbsf=" in first
    keyword = CliRunner().invoke(main, ["retrieve", "ZX-9981-Q", "--config", str(store), "-k", "1",
                                        "--search-type", "keyword"])
    assert "bm25=" in keyword.output.splitlines()[0]
    as_json = CliRunner().invoke(main, ["retrieve", "valve", "--config", str(store), "-k", "1", "--json"])
    meta = json.loads(as_json.output)[0]["metadata"]
    assert meta["score_type"] == "dbsf" and meta["score_max"] == 2.0
