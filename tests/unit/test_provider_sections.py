"""The provider factories build from the typed config sections: one registry, one default per key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragwire.config import (
    DEFAULT_EMBEDDING_MODELS,
    DEFAULT_TIMEOUT_S,
    EMBEDDING_PROVIDERS,
    LLM_PROVIDERS,
    EmbeddingsConfig,
    LLMConfig,
    parse_config,
)
from ragwire.errors import ConfigError
from ragwire.providers import embeddings, get_chat_model, get_embedding, llm
from ragwire.providers._config import as_section


def test_every_provider_name_has_one_builder_and_every_embedding_one_default_model():
    assert set(embeddings._BUILDERS) == set(EMBEDDING_PROVIDERS) == set(DEFAULT_EMBEDDING_MODELS)
    assert set(llm._BUILDERS) == set(LLM_PROVIDERS)


def test_a_plain_dict_becomes_the_same_section_as_the_config_file_gives():
    raw = {"provider": "ollama", "num_ctx": 2048}
    from_dict = as_section(raw, EmbeddingsConfig, "embeddings", EMBEDDING_PROVIDERS)
    from_file = parse_config({"embeddings": raw}, base_dir=Path.cwd()).embeddings
    assert from_dict == from_file
    assert from_dict.timeout == DEFAULT_TIMEOUT_S == 60


def test_a_typed_section_is_used_as_it_is():
    section = LLMConfig(provider="ollama", model="qwen3.5:9b")
    assert as_section(section, LLMConfig, "llm", LLM_PROVIDERS) is section


def test_a_dict_gets_the_documented_60_second_timeout():
    # Regression: the plain-dict path defaulted to 300 s while config.yaml (and the docs) said 60 s.
    emb = get_embedding({"provider": "ollama", "base_url": "http://127.0.0.1:9"})
    assert emb.client_kwargs["timeout"] == 60
    chat = get_chat_model({"provider": "ollama", "model": "m", "base_url": "http://127.0.0.1:9"})
    assert chat.client_kwargs["timeout"] == 60


def test_a_dict_is_checked_by_the_config_rules_with_one_line_per_problem():
    with pytest.raises(ConfigError) as info:
        get_embedding({"provider": "openai", "batch_size": 0, "timeout": -1})
    assert info.value.problems == [
        "embeddings.batch_size: must be at least 1 (got 0)",
        "embeddings.timeout: must be greater than 0 (got -1)",
    ]


def test_model_name_on_an_api_provider_is_a_did_you_mean_error_in_a_dict_too():
    with pytest.raises(
        ConfigError,
        match=r"embeddings\.model_name: provider ollama reads model, not model_name \(did you mean 'model'\?\)",
    ):
        get_embedding({"provider": "ollama", "model_name": "nomic-embed-text"})


def test_a_dict_still_accepts_a_provider_in_any_case():
    assert as_section({"provider": " OpenAI "}, EmbeddingsConfig, "embeddings", EMBEDDING_PROVIDERS).provider == "openai"
