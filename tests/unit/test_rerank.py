"""Reranking logic with a fake scorer: ordering, top_k, scores kept apart, startup checks."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Sequence

import pytest

from ragwire.config import RerankConfig
from ragwire.errors import ConfigError, MissingDependencyError, ProviderError
from ragwire.rerank import Reranker, get_reranker, ranked
from ragwire.rerank.cohere import CohereReranker
from ragwire.rerank.cross_encoder import CrossEncoderReranker


class FakeScorer:
    """Scores a document by a fixed table (unknown texts score 0) and records every call."""

    def __init__(self, table: dict[str, float]) -> None:
        self.table = table
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        self.calls.append((query, list(documents)))
        return [self.table.get(d, 0.0) for d in documents]


def test_results_are_ordered_by_rerank_score_and_cut_to_top_k():
    scorer = FakeScorer({"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.7})
    assert ranked(scorer, "q", ["a", "b", "c", "d"], top_k=3) == [(1, 0.9), (3, 0.7), (2, 0.5)]


def test_every_candidate_is_scored_in_one_call_with_the_query():
    scorer = FakeScorer({})
    ranked(scorer, "the query", ["a", "b", "c"], top_k=1)
    assert scorer.calls == [("the query", ["a", "b", "c"])]


def test_rerank_scores_are_floats():
    kept = ranked(FakeScorer({"b": 2.5}), "q", ["a", "b"], top_k=2)
    assert kept == [(1, 2.5), (0, 0.0)]
    assert all(isinstance(score, float) for _i, score in kept)


def test_equal_rerank_scores_keep_the_engine_order():
    assert [i for i, _s in ranked(FakeScorer({}), "q", ["x", "y", "z"], top_k=3)] == [0, 1, 2]


def test_no_candidates_returns_empty_without_calling_the_scorer():
    scorer = FakeScorer({})
    assert ranked(scorer, "q", [], top_k=5) == []
    assert scorer.calls == []


def test_a_scorer_returning_the_wrong_number_of_scores_is_a_provider_error():
    class Short:
        def score(self, query: str, documents: Sequence[str]) -> list[float]:
            return [1.0]

    with pytest.raises(ProviderError, match=r"returned 1 scores for 2 documents"):
        ranked(Short(), "q", ["a", "b"], top_k=2)


@pytest.mark.parametrize(("top_k", "fetch_k", "expected"), [(5, None, 20), (10, None, 40), (5, 3, 5), (5, 8, 8)])
def test_fetch_k_defaults_to_four_times_top_k_at_least_20_and_never_below_top_k(top_k, fetch_k, expected):
    assert RerankConfig(fetch_k=fetch_k).effective_fetch_k(top_k) == expected


# -- the factory ----------------------------------------------------------------------


def test_cross_encoder_is_built_without_loading_a_model():
    reranker = get_reranker({"provider": "cross_encoder", "model": "/models/reranker", "batch_size": 4,
                             "device": "cpu", "max_length": 256})
    assert isinstance(reranker, CrossEncoderReranker) and isinstance(reranker, Reranker)
    assert (reranker.batch_size, reranker.device, reranker.model_options) == (4, "cpu", {"max_length": 256})
    assert reranker._model is None


def test_cross_encoder_defaults_to_bge_reranker_base():
    assert get_reranker(RerankConfig()).model_name == "BAAI/bge-reranker-base"


def test_unknown_provider_option_is_refused_naming_the_valid_ones():
    with pytest.raises(ConfigError, match=r"retriever\.rerank\.colour: unknown option for provider cross_encoder "
                                          r"\(valid: .*batch_size.*device"):
        get_reranker({"provider": "cross_encoder", "colour": "blue"})


def test_bad_batch_size_is_a_config_error():
    with pytest.raises(ConfigError, match=r"retriever\.rerank\.batch_size: must be a positive integer"):
        get_reranker({"batch_size": 0})


@pytest.mark.parametrize(("provider", "module", "extra"), [
    ("cross_encoder", "sentence_transformers", "rerank"),
    ("cohere", "cohere", "cohere"),
])
def test_missing_package_names_the_install_command(monkeypatch, provider, module, extra):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == module else real(name, *a))
    with pytest.raises(MissingDependencyError, match=rf"pip install 'ragwire\[{extra}\]'") as info:
        get_reranker({"provider": provider, "api_key": "k"})
    assert isinstance(info.value, ImportError)
    assert f"retriever.rerank.provider: {provider}" in str(info.value)


def test_cohere_without_an_api_key_is_a_one_line_config_error():
    with pytest.raises(ConfigError, match=r"^config\.yaml: retriever\.rerank\.api_key: provider cohere needs an API "
                                          r"key: set COHERE_API_KEY or retriever\.rerank\.api_key$"):
        get_reranker({"provider": "cohere"})


@pytest.mark.parametrize("variable", ["COHERE_API_KEY", "CO_API_KEY"])
def test_cohere_key_comes_from_the_environment(monkeypatch, variable):
    monkeypatch.setenv(variable, "from-env")
    reranker = get_reranker({"provider": "cohere"})
    assert isinstance(reranker, CohereReranker)
    assert reranker._api_key == "from-env"
    assert (reranker.model, reranker.url) == ("rerank-v3.5", "https://api.cohere.com")


def test_cohere_key_in_the_config_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("COHERE_API_KEY", "from-env")
    assert get_reranker({"provider": "cohere", "api_key": "from-config"})._api_key == "from-config"


def test_building_rerankers_imports_neither_sentence_transformers_nor_cohere():
    code = (
        "import sys\n"
        "from ragwire.rerank import get_reranker\n"
        "get_reranker({'provider': 'cross_encoder'})\n"
        "get_reranker({'provider': 'cohere', 'api_key': 'k'})\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'cohere')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
