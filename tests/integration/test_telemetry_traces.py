"""One connected trace per operation, by the GenAI conventions (issue 35, items 10 to 12), recorded with the
real OpenTelemetry SDK's in-memory exporter: ingest with metadata extraction, retrieve with rerank, query,
refined query, stream and chat each give one trace, and every span hangs under the right parent.
The chat model is the real ChatOpenAI client on the OpenAI-protocol stub, the reranker the real cohere client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ragwire import RAGWire, telemetry

from .helpers import COMPANY_YEAR_SCHEMA, write_config, write_topics
from .otel_memory import chat_calls, exporter  # noqa: F401 - exporter is a fixture
from .refine_stub import CHAIN, CHARGE, QUESTION, Script, stub, sufficient  # noqa: F401 - stub is a fixture

ANSWER = "A full charge takes three hours [1]."


@pytest.fixture(scope="module")
def rag(stub, tmp_path_factory) -> Iterator[RAGWire]:
    root = tmp_path_factory.mktemp("traces")
    (root / "metadata.yaml").write_text(COMPANY_YEAR_SCHEMA, encoding="utf-8")
    script = Script()
    stub.chat_reply = script
    llm = {"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "test", "timeout": 5}
    rerank = {"provider": "cohere", "model": "rerank-stub", "api_key": "k", "base_url": stub.url}
    # the torch path: its embedding spans name the huggingface provider
    rag = RAGWire(write_config(root, llm=llm, metadata={"config_file": str(root / "metadata.yaml")},
                               retriever={"rerank": rerank}, ingestion={"retries": 0},
                               embeddings={"provider": "huggingface"}))
    docs = write_topics(root / "docs")
    assert rag.ingest_documents([str(p) for p in docs[:-1]])["processed"] == len(docs) - 1
    rag.later = docs[-1]  # type: ignore[attr-defined] - ingested by the ingest test, under its tracer
    with rag:
        yield rag


@pytest.fixture
def script(stub, rag) -> Script:
    script = Script()
    script.answer = ANSWER
    stub.chat_reply = script
    stub.reset()
    return script


def one_trace(spans: Any, root_name: str) -> tuple[Any, dict[str, list[Any]]]:
    """The single root (named ``root_name``) of ``spans``, which must all share its trace; spans by name."""
    assert spans, "nothing was traced"
    assert len({s.context.trace_id for s in spans}) == 1, sorted(s.name for s in spans)
    roots = [s for s in spans if s.parent is None]
    assert [r.name for r in roots] == [root_name]
    by_name: dict[str, list[Any]] = {}
    for s in spans:
        by_name.setdefault(s.name, []).append(s)
    return roots[0], by_name


def parent_of(span: Any, spans: Any) -> Any:
    (parent,) = [s for s in spans if s.context.span_id == span.parent.span_id]
    return parent


def kind(span: Any) -> str:
    return span.kind.name


def test_an_ingest_with_metadata_extraction_is_one_trace_with_the_chat_spans_under_the_run(rag, script, exporter):
    script.metadata = '{"company": "robot co", "year": 2024}'
    assert rag.ingest_documents([str(rag.later)])["processed"] == 1

    spans = exporter.get_finished_spans()
    run, by_name = one_trace(spans, "ragwire ingest")
    (chat,) = by_name["chat stub-chat"]
    assert chat.parent.span_id == run.context.span_id
    assert chat.attributes["ragwire.step"] == "metadata extraction" and kind(chat) == "CLIENT"
    assert all(parent_of(s, spans) is not None for s in spans if s is not run)


def test_retrieve_with_rerank_is_one_retrieval_span_parent_of_its_embedding_and_rerank_spans(rag, exporter):
    rag.retrieve("How long does a full charge take?", top_k=2)

    spans = exporter.get_finished_spans()
    retrieval, by_name = one_trace(spans, "retrieval test_docs")
    (embedding,) = [s for s in spans if s.name.startswith("embeddings ")]
    (rerank,) = by_name["rerank rerank-stub"]
    assert embedding.parent.span_id == retrieval.context.span_id == rerank.parent.span_id
    assert retrieval.attributes["gen_ai.operation.name"] == "retrieval"
    assert retrieval.attributes["gen_ai.data_source.id"] == "test_docs" and retrieval.attributes["ragwire.chunks"] == 2
    assert embedding.attributes["gen_ai.provider.name"] == "huggingface" and kind(embedding) == "INTERNAL"
    # what was asked is not recorded unless the application opts in
    assert "gen_ai.retrieval.query.text" not in retrieval.attributes and "ragwire.query" not in retrieval.attributes


def test_the_query_text_is_recorded_under_the_conventions_name_only_when_opted_in(rag, exporter):
    telemetry.record_queries(True)
    rag.retrieve("How long does a full charge take?", top_k=2)
    (retrieval,) = [s for s in exporter.get_finished_spans() if s.name.startswith("retrieval ")]
    assert retrieval.attributes["gen_ai.retrieval.query.text"] == "How long does a full charge take?"


def test_a_query_is_one_trace_with_retrieval_under_the_query_and_a_client_chat_span(rag, script, exporter):
    answer = rag.query("How long does a full charge take?", top_k=2)

    spans = exporter.get_finished_spans()
    root, by_name = one_trace(spans, "invoke_agent ragwire")
    assert format(root.context.trace_id, "032x") == answer.trace_id
    (retrieval,) = by_name["retrieval test_docs"]
    (chat,) = by_name["chat stub-chat"]
    assert retrieval.parent.span_id == root.context.span_id == chat.parent.span_id
    assert {parent_of(s, spans).name for s in spans if s.name.startswith(("embeddings ", "rerank "))} == {
        "retrieval test_docs"}
    assert kind(chat) == "CLIENT" and chat.attributes["ragwire.step"] == "answer"
    assert chat.attributes["gen_ai.provider.name"] == "openai"


def test_a_refined_query_is_one_trace_whose_chat_spans_say_classify_judge_and_answer(rag, script, exporter):
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    rag.query(QUESTION, top_k=2, refine=True)

    spans = exporter.get_finished_spans()
    root, by_name = one_trace(spans, "invoke_agent ragwire")
    assert [step for step, _, _ in chat_calls(spans)] == ["classify", "judge", "answer"]
    assert all(c.parent.span_id == root.context.span_id and kind(c) == "CLIENT" for c in by_name["chat stub-chat"])
    assert [r.parent.span_id for r in by_name["retrieval test_docs"]] == [root.context.span_id] * 2


def test_a_streamed_query_is_one_trace_with_its_chat_span_under_the_query(rag, script, exporter):
    *_, answer = rag.query_stream("How long does a full charge take?", top_k=2)

    spans = exporter.get_finished_spans()
    root, by_name = one_trace(spans, "invoke_agent ragwire")
    (chat,) = by_name["chat stub-chat"]
    assert chat.parent.span_id == root.context.span_id and kind(chat) == "CLIENT"
    assert chat.attributes["ragwire.step"] == "answer" and chat.attributes["gen_ai.usage.input_tokens"] == 10
    assert format(root.context.trace_id, "032x") == answer.trace_id


def test_a_chat_is_one_trace_with_its_rewrite_retrieval_and_answer_under_it(rag, script, exporter):
    rag.chat([{"role": "user", "content": "Tell me about the robot."},
              {"role": "assistant", "content": "It docks every night."},
              {"role": "user", "content": "How long does its charge take?"}], top_k=2)

    spans = exporter.get_finished_spans()
    root, by_name = one_trace(spans, "invoke_agent ragwire")
    assert [step for step, _, _ in chat_calls(spans)] == ["rewrite", "answer"]
    assert all(s.parent.span_id == root.context.span_id
               for s in [*by_name["chat stub-chat"], *by_name["retrieval test_docs"]])


def test_a_failed_chat_call_sets_error_type_on_its_span_and_the_query_span(rag, script, stub, exporter, monkeypatch):
    from ragwire.errors import ProviderError

    monkeypatch.setattr(rag.answerer, "retries", 0)
    stub.script_failures([500], marker="stub-chat")  # the chat request, not the rerank
    with pytest.raises(ProviderError):
        rag.query("How long does a full charge take?", top_k=2)

    spans = exporter.get_finished_spans()
    root, by_name = one_trace(spans, "invoke_agent ragwire")
    (chat,) = by_name["chat stub-chat"]
    for span in (chat, root):
        assert span.status.status_code.name == "ERROR"
        assert span.attributes["error.type"] == "ragwire.errors.ProviderError"
