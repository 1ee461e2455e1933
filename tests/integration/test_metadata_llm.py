"""Metadata extraction with the real ChatOpenAI / ChatOllama clients over HTTP against the stub server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragwire.errors import ProviderError
from ragwire.metadata import MetadataExtractor, extract_filters
from ragwire.providers import get_chat_model
from tests.stubs import StubServer

EXAMPLE = Path(__file__).resolve().parents[2] / "metadata.yaml.example"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _openai(base_url: str) -> Any:
    return get_chat_model({"provider": "openai", "model": "stub-chat", "base_url": base_url, "api_key": "k"})


def _ollama(base_url: str) -> Any:
    return get_chat_model({"provider": "ollama", "model": "stub-chat", "base_url": base_url})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body["messages"])


def test_openai_extract_sends_the_json_schema_and_stored_values_and_normalises_the_reply(stub):
    stub.chat_reply = json.dumps(
        {"product": " Aurora AR-7 ", "doc_type": "Manual", "firmware_version": None, "year": "2024"}
    )
    extractor = MetadataExtractor.from_yaml(_openai(stub.openai_url), EXAMPLE)

    out = extractor.extract("The Aurora AR-7 manual, 2024 edition.", stored_values={"product": ["aurora ar-7"]})

    assert out == {"product": "aurora ar-7", "doc_type": "manual", "year": 2024}
    (request,) = stub.requests_to("/chat/completions")
    response_format = request.body["response_format"]
    assert response_format["type"] == "json_schema"
    properties = response_format["json_schema"]["schema"]["properties"]
    assert sorted(properties) == ["doc_type", "firmware_version", "product", "year"]
    assert '"manual", "policy"' in properties["doc_type"]["description"]
    prompt = _prompt(request.body)
    assert '- product: ["aurora ar-7"]' in prompt
    assert "The Aurora AR-7 manual, 2024 edition." in prompt


def test_openai_malformed_json_reply_is_a_one_line_provider_error_naming_the_llm(stub):
    stub.chat_reply = "{not json"
    extractor = MetadataExtractor.from_yaml(_openai(stub.openai_url), EXAMPLE)
    with pytest.raises(ProviderError, match=r"LLM metadata extraction \(ChatOpenAI model stub-chat at http://127\.0\.0\.1") as info:
        extractor.extract("text")
    message = str(info.value)
    assert "\n" not in message and "does not fit the schema" in message
    assert len(stub.requests_to("/chat/completions")) == 1  # a bad reply is not retried


def test_openai_reply_with_one_unconvertible_value_keeps_the_other_fields(stub, caplog):
    # guards issue 19.9: one value the schema's type cannot hold failed the whole reply inside the client
    stub.chat_reply = json.dumps({"product": "AR-7", "doc_type": "manual", "firmware_version": None, "year": "soon"})
    extractor = MetadataExtractor.from_yaml(_openai(stub.openai_url), EXAMPLE)
    with caplog.at_level("WARNING", logger="ragwire.metadata"):
        assert extractor.extract("text") == {"product": "ar-7", "doc_type": "manual"}
    assert "metadata field year: 'soon' is not an integer" in caplog.text


def test_ollama_reply_with_one_unconvertible_value_keeps_the_other_fields(stub):
    stub.chat_reply = json.dumps({"company_name": "Apple", "doc_type": "10-K", "fiscal_quarter": None,
                                  "fiscal_year": [2025, "n/a", 2025.5]})
    assert MetadataExtractor(_ollama(stub.url)).extract("text") == {
        "company_name": "apple", "doc_type": "10-k", "fiscal_year": [2025]}


def test_refused_connection_is_a_one_line_provider_error_after_the_retries():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    extractor = MetadataExtractor.from_yaml(_openai(url), EXAMPLE, retries=1)
    with pytest.raises(ProviderError, match=r"failed after 2 attempts") as info:
        extractor.extract("text")
    message = str(info.value)
    assert url in message and "\n" not in message
    assert info.value.retryable


def test_server_errors_are_retried_then_reported(stub):
    stub.script_failures([500, 500])
    stub.chat_reply = json.dumps({"product": "x", "doc_type": None, "firmware_version": None, "year": None})
    extractor = MetadataExtractor.from_yaml(_openai(stub.openai_url), EXAMPLE, retries=2)
    assert extractor.extract("text") == {"product": "x"}
    assert len(stub.requests_to("/chat/completions")) == 3

    stub.reset()
    stub.fail_always = 503
    with pytest.raises(ProviderError, match=r"failed after 3 attempts.*503"):
        extractor.extract("text")


def test_openai_extract_filters_keeps_only_values_that_match_stored_ones(stub):
    stub.chat_reply = json.dumps({"product": "Aurora AR7", "doc_type": "manual", "firmware_version": "9.9", "year": 2024})
    extractor = MetadataExtractor.from_yaml(_openai(stub.openai_url), EXAMPLE)
    stored = {"product": ["aurora ar-7", "borealis b2"], "doc_type": ["manual", "faq"], "firmware_version": ["3.3.1"],
              "year": [2023]}

    filters = extract_filters(extractor, "aurora ar7 manuals from 2024", stored)

    assert filters == {"product": "aurora ar-7", "doc_type": "manual"}
    prompt = _prompt(stub.requests_to("/chat/completions")[-1].body)
    assert "Question: aurora ar7 manuals from 2024" in prompt and "clearly asks" in prompt


def test_ollama_extract_sends_the_schema_as_format_and_normalises(stub):
    stub.chat_reply = json.dumps({"company_name": "Apple Inc.", "doc_type": "10-K", "fiscal_quarter": None,
                                  "fiscal_year": [2025]})
    extractor = MetadataExtractor(_ollama(stub.url))

    out = extractor.extract("Apple Inc. annual report 10-K, fiscal 2025", stored_values={"company_name": ["apple inc."]})

    assert out == {"company_name": "apple inc.", "doc_type": "10-k", "fiscal_year": [2025]}
    (request,) = stub.requests_to("/api/chat")
    assert sorted(request.body["format"]["properties"]) == ["company_name", "doc_type", "fiscal_quarter", "fiscal_year"]
    assert '- company_name: ["apple inc."]' in _prompt(request.body)


def test_ollama_malformed_json_reply_is_a_provider_error_not_an_empty_result(stub):
    # ChatOllama parses "{oops" leniently into an all-empty object; that must not pass as "nothing found"
    stub.chat_reply = "{oops"
    extractor = MetadataExtractor(_ollama(stub.url))
    with pytest.raises(ProviderError, match=r"LLM metadata extraction \(ChatOllama model stub-chat at http://127\.0\.0\.1:\d+\) failed: the reply is not valid JSON"):
        extractor.extract("text")
