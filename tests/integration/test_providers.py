"""Provider factories with real clients: packaged MiniLM; OpenAI / Ollama over HTTP to a stub."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from ragwire.errors import ConfigError, MissingDependencyError, ProviderError
from ragwire.providers import (
    SparseEncoder,
    SparseVec,
    call_with_retries,
    embedding_dimension,
    get_chat_model,
    get_embedding,
)
from tests.stubs import DROP, StubServer

REPO = Path(__file__).resolve().parents[2]

_KEYS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENROUTER_API_KEY",
    "GOOGLE_API_KEY",
    "GROQ_API_KEY",
    "ANTHROPIC_API_KEY",
    "OLLAMA_HOST",
)


@pytest.fixture(autouse=True)
def _offline_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for key in _KEYS:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(dim=8) as server:
        yield server


@pytest.fixture(scope="module")
def minilm() -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        return get_embedding(
            {"provider": "huggingface", "model_name": "sentence-transformers/all-MiniLM-L6-v2"}
        )


def _http_embedding(kind: str, stub: StubServer) -> Any:
    if kind == "openai":
        return get_embedding(
            {
                "provider": "openai",
                "model": "stub-embed",
                "base_url": stub.openai_url,
                "api_key": "test-key",
            }
        )
    return get_embedding({"provider": "ollama", "model": "stub-embed", "base_url": stub.url})


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


# -- dense, local ---------------------------------------------------------------


def test_packaged_minilm_loads_offline_with_384_dimensions(minilm: Any) -> None:
    vector = minilm.embed_query("What was Apple's revenue in 2024?")
    assert len(vector) == 384
    assert embedding_dimension(minilm) == 384


def test_packaged_minilm_puts_similar_texts_closer_than_unrelated_ones(minilm: Any) -> None:
    query, similar, unrelated = minilm.embed_documents(
        [
            "The company reported higher quarterly revenue.",
            "Quarterly sales of the firm went up.",
            "A recipe for baking sourdough bread at home.",
        ]
    )
    assert _cosine(query, similar) > _cosine(query, unrelated) + 0.2


def test_unknown_huggingface_model_offline_fails_fast_with_provider_error() -> None:
    started = time.monotonic()
    with pytest.raises(
        ProviderError,
        match=r"embeddings\.model_name: could not load huggingface model 'nobody/no-such-model'",
    ):
        get_embedding({"provider": "huggingface", "model_name": "nobody/no-such-model"})
    assert time.monotonic() - started < 10


# -- dense, over HTTP ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_http_embeddings_return_the_stub_vectors(kind: str, stub: StubServer) -> None:
    emb = _http_embedding(kind, stub)
    texts = ["first chunk", "second chunk"]
    assert emb.embed_documents(texts) == [stub.vector(t) for t in texts]
    assert emb.embed_query("a question") == stub.vector("a question")
    assert stub.embedding_inputs() == [*texts, "a question"]


def test_openai_embeddings_send_raw_text_with_the_model_and_key(stub: StubServer) -> None:
    _http_embedding("openai", stub).embed_documents(["plain text, not token ids"])
    (request,) = stub.requests_to("/v1/embeddings")
    assert request.body["model"] == "stub-embed"
    assert request.body["input"] == ["plain text, not token ids"]
    assert request.headers["authorization"] == "Bearer test-key"


def test_openrouter_embeddings_read_key_from_env_and_batch_by_batch_size(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    emb = get_embedding({"provider": "openrouter", "base_url": stub.openai_url, "batch_size": 2})
    texts = [f"text {i}" for i in range(5)]
    assert emb.embed_documents(texts) == [stub.vector(t) for t in texts]
    calls = stub.embedding_calls()
    assert [len(c.inputs) for c in calls] == [2, 2, 1]
    assert calls[0].body["model"] == "nvidia/llama-nemotron-embed-vl-1b-v2:free"
    assert calls[0].headers["authorization"] == "Bearer or-key"


def test_config_object_with_secret_api_key_is_accepted(stub: StubServer) -> None:
    class EmbeddingsSection(BaseModel):
        provider: str
        model: str | None = None
        base_url: str | None = None
        api_key: SecretStr | None = None
        num_ctx: int | None = None

    section = EmbeddingsSection(
        provider="openai", base_url=stub.openai_url, api_key=SecretStr("s3cret")
    )
    get_embedding(section).embed_query("hello")
    (request,) = stub.embedding_calls()
    assert request.headers["authorization"] == "Bearer s3cret"
    assert request.body["model"] == "text-embedding-3-small"


def test_raw_dict_expands_env_references(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_URL", stub.url)
    get_embedding({"provider": "ollama", "base_url": "${STUB_URL}", "num_ctx": 2048}).embed_query(
        "x"
    )
    (request,) = stub.embedding_calls()
    assert request.body["model"] == "nomic-embed-text"
    assert request.body["options"]["num_ctx"] == 2048


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_500_500_200_succeeds_with_two_retries_and_three_calls(kind: str, stub: StubServer) -> None:
    emb = _http_embedding(kind, stub)
    stub.script_failures([500, 500])
    sleeps: list[float] = []
    vectors = call_with_retries(
        emb.embed_documents, ["retry me"], retries=2, sleep=sleeps.append, what="embed"
    )
    assert vectors == [stub.vector("retry me")]
    assert len(stub.embedding_calls()) == 3  # the client's own retries are off
    assert len(sleeps) == 2


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_always_500_raises_retryable_provider_error_after_retries_plus_one_calls(
    kind: str, stub: StubServer
) -> None:
    emb = _http_embedding(kind, stub)
    stub.fail_always = 500
    with pytest.raises(ProviderError, match=r"^embed batch 0 failed after 3 attempts: ") as info:
        call_with_retries(
            emb.embed_documents, ["doomed"], retries=2, sleep=lambda _s: None, what="embed batch 0"
        )
    assert info.value.retryable is True
    assert "\n" not in str(info.value)
    assert len(stub.embedding_calls()) == 3


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_4xx_from_the_server_is_not_retried(kind: str, stub: StubServer) -> None:
    emb = _http_embedding(kind, stub)
    stub.fail_always = 400
    with pytest.raises(ProviderError) as info:
        call_with_retries(emb.embed_documents, ["bad"], retries=3, sleep=lambda _s: None)
    assert info.value.retryable is False
    assert len(stub.embedding_calls()) == 1


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_dropped_connection_is_retryable(kind: str, stub: StubServer) -> None:
    emb = _http_embedding(kind, stub)
    stub.script_failures([DROP])
    assert call_with_retries(
        emb.embed_query, "hello", retries=1, sleep=lambda _s: None
    ) == stub.vector("hello")
    assert len(stub.embedding_calls()) == 2


def test_failures_can_target_inputs_containing_a_marker(stub: StubServer) -> None:
    emb = _http_embedding("ollama", stub)
    stub.fail_always = 500
    stub.fail_marker = "POISON"
    assert emb.embed_documents(["healthy text"]) == [stub.vector("healthy text")]
    with pytest.raises(ProviderError):
        call_with_retries(
            emb.embed_documents, ["has POISON inside"], retries=1, sleep=lambda _s: None
        )
    assert stub.embedding_inputs() == ["healthy text", "has POISON inside", "has POISON inside"]


def test_embedding_dimension_probes_once(stub: StubServer) -> None:
    emb = _http_embedding("ollama", stub)
    assert embedding_dimension(emb) == 8
    assert embedding_dimension(emb) == 8
    assert len(stub.embedding_calls()) == 1


# -- chat models -------------------------------------------------------------------


def test_openai_chat_model_replies_through_the_stub(stub: StubServer) -> None:
    stub.chat_reply = lambda body: "echo: " + body["messages"][-1]["content"]
    chat = get_chat_model(
        {
            "provider": "openai",
            "model": "stub-chat",
            "base_url": stub.openai_url,
            "api_key": "k",
            "temperature": 0,
        }
    )
    assert chat.invoke("ping").content == "echo: ping"
    (request,) = stub.requests_to("/v1/chat/completions")
    assert request.body["model"] == "stub-chat"
    assert request.body["temperature"] == 0


def test_ollama_chat_model_streams_ndjson_and_sends_num_ctx(stub: StubServer) -> None:
    chat = get_chat_model(
        {"provider": "ollama", "model": "qwen-stub", "base_url": stub.url, "num_ctx": 4096}
    )
    assert chat.invoke("ping").content == stub.chat_reply
    (request,) = stub.requests_to("/api/chat")
    assert request.body["options"]["num_ctx"] == 4096


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_chat_model_client_does_not_retry_on_its_own(provider: str, stub: StubServer) -> None:
    base_url = stub.openai_url if provider == "openai" else stub.url
    chat = get_chat_model(
        {"provider": provider, "model": "m", "base_url": base_url, "api_key": "k"}
    )
    stub.fail_always = 503
    with pytest.raises(ProviderError) as info:
        call_with_retries(chat.invoke, "ping", retries=0, what="chat")
    assert info.value.retryable is True
    assert len(stub.requests) == 1


# -- config problems -----------------------------------------------------------------


def test_unknown_provider_lists_the_valid_names() -> None:
    with pytest.raises(
        ConfigError,
        match=r"embeddings\.provider: unknown provider 'olama' \(did you mean 'ollama'\?\) "
        r"\(valid: fastembed, google, huggingface, ollama, onnx, openai, openrouter\)",
    ):
        get_embedding({"provider": "olama"})
    with pytest.raises(
        ConfigError,
        match=r"llm\.provider: unknown provider 'gpt' .*"
        r"valid: anthropic, google, groq, ollama, openai, openrouter",
    ):
        get_chat_model({"provider": "gpt", "model": "x"})


def test_unknown_key_in_a_raw_dict_suggests_the_close_one() -> None:
    with pytest.raises(
        ConfigError, match=r"embeddings\.model_nme: unknown key \(did you mean 'model_name'\?\)"
    ):
        get_embedding({"provider": "huggingface", "model_nme": "x"})


def test_unset_env_reference_is_a_config_error() -> None:
    with pytest.raises(
        ConfigError,
        match=r"embeddings\.api_key: environment variable RAGWIRE_TEST_UNSET_KEY is not set",
    ):
        get_embedding({"provider": "openrouter", "api_key": "${RAGWIRE_TEST_UNSET_KEY}"})


def test_openai_without_key_or_base_url_is_a_config_error() -> None:
    with pytest.raises(
        ConfigError,
        match=r"embeddings\.api_key: provider openai needs an API key: set OPENAI_API_KEY",
    ):
        get_embedding({"provider": "openai"})


def test_llm_without_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"llm\.model: required for provider ollama"):
        get_chat_model({"provider": "ollama"})


def test_missing_package_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_google_genai", None)  # makes the import fail
    with pytest.raises(
        MissingDependencyError,
        match=r"^embeddings\.provider: google needs langchain-google-genai\. "
        r"Install it with: pip install 'ragwire\[google\]'$",
    ):
        get_embedding({"provider": "google", "api_key": "k"})


# -- sparse ----------------------------------------------------------------------------


def test_sparse_encoder_gives_identical_vectors_for_identical_text() -> None:
    encoder = SparseEncoder()
    first, second = encoder.embed_documents(["Revenue grew in the third quarter."] * 2)
    assert isinstance(first, SparseVec)
    assert first == second
    assert first.indices and len(first.indices) == len(first.values)
    assert encoder.name == "bm25"


def test_sparse_ids_overlap_for_shared_words_only() -> None:
    encoder = SparseEncoder()
    revenue, costs = encoder.embed_documents(
        ["Apple revenue grew strongly", "Microsoft costs fell sharply"]
    )
    query = encoder.embed_query("apple revenue")
    assert set(query.indices) <= set(revenue.indices)
    assert not set(query.indices) & set(costs.indices)
    assert query.values == [1.0] * len(query.indices)


def test_sparse_encoder_without_qdrant_edge_raises_instead_of_falling_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "qdrant_edge", None)  # makes the import fail
    with pytest.raises(
        MissingDependencyError, match=r"sparse vectors \(bm25\) need qdrant-edge-py.*pip install"
    ):
        SparseEncoder()


# -- import cost -------------------------------------------------------------------------


def test_importing_providers_loads_no_heavy_package() -> None:
    heavy = [
        "torch",
        "sentence_transformers",
        "langchain_openai",
        "langchain_ollama",
        "transformers",
        "qdrant_edge",
    ]
    code = (
        "import sys, ragwire.providers\n"
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == ""
