"""A 429 with ``Retry-After`` is retried when the server asks, for LLM, embedding and rerank calls.

The real ChatOpenAI, OpenAI embeddings and Cohere clients talk to the stub server,
which answers the first request with HTTP 429 and a ``Retry-After`` header and
records when each request arrived.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragwire.errors import ProviderError
from ragwire.metadata import MetadataExtractor
from ragwire.providers import call_with_retries, get_chat_model, get_embedding
from ragwire.rerank.cohere import CohereReranker
from tests.stubs import StubServer

EXAMPLE = Path(__file__).resolve().parents[2] / "metadata.yaml.example"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(chat_reply=json.dumps({"product": "ar-7"})) as server:
        yield server


def _gap(stub: StubServer, path: str) -> float:
    first, second = stub.requests_to(path)
    assert (first.status, second.status) == (429, 200)
    return second.at - first.at


def _llm_call(stub: StubServer) -> None:
    llm = get_chat_model({"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "k"})
    assert MetadataExtractor.from_yaml(llm, EXAMPLE, retries=2).extract("text") == {"product": "ar-7"}


def test_an_llm_429_is_retried_after_the_retry_after_seconds(stub):
    # guards issue 19.12: a 429 with Retry-After: 1 was retried after a jittered 0.3 s
    stub.failure_headers = {"Retry-After": "1"}
    stub.script_failures([429])
    _llm_call(stub)
    assert 0.95 <= _gap(stub, "/chat/completions") < 3.0


def test_a_retry_after_http_date_is_honoured(stub):
    stub.failure_headers = {"Retry-After": email.utils.formatdate(time.time() + 4, usegmt=True)}
    stub.script_failures([429])
    _llm_call(stub)
    # the date has whole seconds and was written before the client was built: a wait of 1.5 to 4 s
    assert 1.5 <= _gap(stub, "/chat/completions") < 4.5


def test_an_embedding_429_is_retried_after_the_retry_after_seconds(stub):
    embedding = get_embedding({"provider": "openai", "model": "text-embedding-3-small", "base_url": stub.openai_url,
                               "api_key": "k"})
    stub.failure_headers = {"Retry-After": "1"}
    stub.script_failures([429])
    vectors = call_with_retries(embedding.embed_documents, ["a", "b"], retries=2, what="embedding")
    assert len(vectors) == 2
    assert 0.95 <= _gap(stub, "/embeddings") < 3.0


def test_a_rerank_429_is_retried_after_the_retry_after_seconds(stub):
    reranker = CohereReranker("rerank-test", api_key="k", base_url=stub.url, retries=2)
    stub.failure_headers = {"Retry-After": "1"}
    stub.script_failures([429])
    assert len(reranker.score("battery life", ["battery lasts long", "no"])) == 2
    assert 0.95 <= _gap(stub, "/v2/rerank") < 3.0


def test_a_retry_after_beyond_the_maximum_backoff_waits_only_the_maximum(stub):
    llm = get_chat_model({"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "k"})
    stub.failure_headers = {"Retry-After": "3600"}
    stub.script_failures([429, 429])
    with pytest.raises(ProviderError, match=r"failed after 2 attempts.*429"):
        call_with_retries(llm.invoke, "hi", retries=1, max_backoff=0.5, what="chat")
    first, second = stub.requests_to("/chat/completions")
    assert 0.45 <= second.at - first.at < 2.0
