"""`ragwire query` and `rag.as_retriever()` over a real collection, with the real ChatOpenAI client on the stub."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from langchain_core.runnables import RunnableLambda

from ragwire import RAGWire
from ragwire.answer import SENTINEL
from ragwire.cli import EXIT_REFUSED, main
from tests.stubs import StubServer

from .helpers import write_config, write_topics


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture
def topics(tmp_path, stub):
    write_topics(tmp_path / "docs")
    config = write_config(
        tmp_path, llm={"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "test"},
    )
    RAGWire(config).ingest_directory(tmp_path / "docs")
    return config


def test_query_prints_the_answer_with_numbered_sources(topics, stub):
    stub.chat_reply = "A full charge takes three hours [1]."
    result = CliRunner().invoke(main, ["query", "How long does charging take?", "--config", str(topics)])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == "A full charge takes three hours [1]."
    assert lines[1:3] == ["", "Sources:"]
    assert lines[3].startswith("[1] ") and lines[3].endswith(".md › Docking"), lines[3]


def test_a_refusal_exits_3_and_says_so(topics, stub):
    stub.chat_reply = SENTINEL
    result = CliRunner().invoke(main, ["query", "Who won the 1998 world cup?", "--config", str(topics), "--json"])
    assert result.exit_code == EXIT_REFUSED == 3
    data = json.loads(result.output)
    assert data["refused"] is True and data["citations"] == [] and data["documents"]
    assert "do not contain" in data["text"]


def test_query_stream_prints_the_text_then_the_sources(topics, stub):
    stub.chat_reply = "Robins sing at dawn [1]."
    stub.stream_words = True
    result = CliRunner().invoke(main, ["query", "When do robins sing?", "--config", str(topics), "--stream"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Robins sing at dawn [1].\n\nSources:\n[1] birds.md")


def test_a_bad_filter_on_query_is_a_usage_error(topics):
    result = CliRunner().invoke(main, ["query", "x", "--config", str(topics), "-f", "=pdf"])
    assert result.exit_code == 2


def test_as_retriever_in_an_lcel_chain_returns_what_retrieve_returns(topics):
    rag = RAGWire(topics)
    retriever = rag.as_retriever(top_k=3, filters={"file_type": "md"})
    chain = RunnableLambda(lambda q: q.strip()) | retriever
    through_chain = chain.invoke("  battery recycling  ")
    direct = rag.retrieve("battery recycling", top_k=3, filters={"file_type": "md"})
    assert [d.id for d in through_chain] == [d.id for d in direct] and len(direct) == 3
    assert [d.page_content for d in through_chain] == [d.page_content for d in direct]


def test_as_retriever_works_async(topics):
    import asyncio

    rag = RAGWire(topics)
    docs = asyncio.run(rag.as_retriever(top_k=2).ainvoke("passport copy"))
    assert docs and docs[0].metadata["file_name"] == "travel.md"
