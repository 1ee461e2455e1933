"""Every LLM request of an answer is counted once (issue 35, item 9): ``Answer.usage`` against what the
OpenAI-protocol stub received, call by call, with ``retriever.auto_filter`` reading filters from the question.
The per-call check reads the real OpenTelemetry SDK's ``chat`` spans: one per request, with its step."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragwire import RAGWire
from tests.stubs import StubServer

from .helpers import COMPANY_YEAR_SCHEMA, write_config
from .otel_memory import chat_calls, exporter  # noqa: F401 - exporter is a fixture
from .refine_stub import PROMPT_TOKENS, Script, stub  # noqa: F401 - stub is a fixture

DOCS = {
    "apple-2024.md": "# Apple results\n\nApple Inc. reported record services revenue in fiscal 2024.",
    "microsoft-2024.md": "# Microsoft annual report\n\nMicrosoft Corporation grew cloud revenue in fiscal 2024.",
}
REVENUE = "What did Apple report about services revenue?"
TWO_PARTS = "What did Apple report about services revenue, and how did Microsoft grow cloud revenue?"
STEP_NAMES = {"filters": "filter extraction", "classify": "classify", "judge": "judge", "answer": "answer",
              "rewrite": "rewrite"}


@pytest.fixture(scope="module")
def rag(stub, tmp_path_factory) -> Iterator[RAGWire]:
    root = tmp_path_factory.mktemp("usage")
    (root / "metadata.yaml").write_text(COMPANY_YEAR_SCHEMA, encoding="utf-8")
    for name, text in DOCS.items():
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / name).write_text(text, encoding="utf-8")
    script = Script()
    script.metadata = '{"company": "apple inc.", "year": 2024}'
    stub.chat_reply = script
    llm = {"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "test"}
    rag = RAGWire(write_config(root, llm=llm, metadata={"config_file": str(root / "metadata.yaml")},
                               retriever={"auto_filter": True}))
    assert rag.ingest_directory(root / "docs")["processed"] == 2
    with rag:
        yield rag


@pytest.fixture
def script(stub, rag) -> Script:
    script = Script()
    stub.chat_reply = script
    stub.reset()
    return script


def assert_counted_call_by_call(answer, script: Script, stub: StubServer, exporter) -> None:
    """usage = what the stub reported, summed; and each request the stub saw is one chat span with its tokens."""
    seen = stub.requests_to("/chat/completions")
    assert answer.usage.llm_calls == len(seen) == len(script.calls)
    prompt, completion = script.usage_of()
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (prompt, completion)
    expected = [(STEP_NAMES[step], PROMPT_TOKENS, len(reply.split())) for step, reply in script.calls]
    assert chat_calls(exporter.get_finished_spans()) == expected


# regression: filters were read twice per query (the second time by the retriever, uncounted)
def test_a_query_with_auto_filter_reads_filters_once_and_counts_both_calls(rag, script, stub, exporter):
    script.filters = '{"company": "apple inc.", "year": null}'
    script.answer = "Apple reported record services revenue [1]."
    answer = rag.query(REVENUE)

    assert [step for step, _ in script.calls] == ["filters", "answer"]
    assert answer.filters_used == {"company": "apple inc."}
    assert_counted_call_by_call(answer, script, stub, exporter)


# regression: an empty filter result {} became None on its way into the answerer, and the retriever asked again
def test_an_empty_filter_result_is_not_read_again(rag, script, stub, exporter):
    script.filters = '{"company": null, "year": null}'
    script.answer = "Apple reported record services revenue [1]."
    answer = rag.query(REVENUE)

    assert [step for step, _ in script.calls] == ["filters", "answer"]
    assert answer.filters_used is None
    assert_counted_call_by_call(answer, script, stub, exporter)


# regression: with refine the stub saw 6 calls and usage reported 4
def test_a_refined_query_with_auto_filter_counts_every_call(rag, script, stub, exporter):
    parts = ["Apple services revenue", "Microsoft cloud growth"]
    script.plan = {"kind": "multi-part", "queries": parts}
    script.verdicts = [{"parts": [{"part": p, "sufficient": True} for p in parts]}]
    script.answer = "Apple reported record services revenue [1]."
    answer = rag.query(TWO_PARTS, refine=True)

    # filters are read when the first search needs them: after the plan, once for the whole question
    assert [step for step, _ in script.calls] == ["classify", "filters", "judge", "answer"]
    assert_counted_call_by_call(answer, script, stub, exporter)


def test_a_streamed_answer_with_auto_filter_counts_every_call(rag, script, stub, exporter):
    script.answer = "Apple reported record services revenue [1]."
    *_, answer = rag.query_stream(REVENUE)

    assert [step for step, _ in script.calls] == ["filters", "answer"]
    assert_counted_call_by_call(answer, script, stub, exporter)


def test_a_chat_with_auto_filter_reads_filters_from_the_rewritten_question_and_counts_it(rag, script, stub, exporter):
    script.answer = "Apple reported record services revenue [1]."
    answer = rag.chat([{"role": "user", "content": "Tell me about Apple."},
                       {"role": "assistant", "content": "Apple is a company."},
                       {"role": "user", "content": "What did it report about services revenue?"}])

    assert [step for step, _ in script.calls] == ["answer", "filters", "answer"]  # rewrite, filters, answer
    assert answer.usage.llm_calls == 3 == len(stub.requests_to("/chat/completions"))
    assert [step for step, _, _ in chat_calls(exporter.get_finished_spans())] == ["rewrite", "filter extraction",
                                                                                 "answer"]
