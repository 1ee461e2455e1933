"""OpenTelemetry spans with the real SDK and its in-memory exporter; nothing imported without a tracer."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ragwire import RAGWire, telemetry
from tests.stubs import StubServer

from .helpers import write_config, write_topics
from .otel_memory import exporter  # noqa: F401 - a fixture

REPO = Path(__file__).resolve().parents[2]


def test_a_refined_query_emits_genai_spans_under_one_query_span(tmp_path, exporter):
    plan = {"kind": "multi-part", "queries": ["How long does a full charge take?", "How often to oil the chain?"]}

    def reply(body):
        system = body["messages"][0]["content"]
        if system.startswith("You plan searches"):
            return json.dumps(plan)
        if system.startswith("You check whether"):
            return json.dumps({"parts": [{"part": q, "sufficient": True} for q in plan["queries"]]})
        return "A full charge takes three hours [1]."

    with StubServer(chat_reply=reply) as stub:
        llm = {"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "test"}
        rag = RAGWire(write_config(tmp_path, llm=llm))
        ingested = rag.ingest_documents([str(p) for p in write_topics(tmp_path / "docs")])
        exporter.clear()
        telemetry.record_documents(True)
        telemetry.record_queries(True)
        answer = rag.query("How long does a full charge take, and how often should I oil the chain?",
                           top_k=2, refine=True)
        rag.close()

    spans = exporter.get_finished_spans()
    by_name: dict[str, list] = {}
    for s in spans:
        by_name.setdefault(s.name, []).append(s)
    (root,) = by_name["invoke_agent ragwire"]
    assert root.parent is None
    assert format(root.context.trace_id, "032x") == answer.trace_id
    assert root.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert root.attributes["gen_ai.usage.input_tokens"] == answer.usage.prompt_tokens == 30
    assert root.attributes["ragwire.iterations"] == 1 and root.attributes["ragwire.llm_calls"] == 3

    chats = by_name["chat stub-chat"]
    assert len(chats) == 3 and all(c.parent.span_id == root.context.span_id for c in chats)
    for chat in chats:
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.request.model"] == "stub-chat"
        assert chat.attributes["gen_ai.usage.input_tokens"] == 10
        assert chat.attributes["gen_ai.usage.output_tokens"] >= 1
    assert sum(c.attributes["gen_ai.usage.output_tokens"] for c in chats) == answer.usage.completion_tokens

    retrievals = by_name["retrieval test_docs"]
    assert [r.attributes["gen_ai.retrieval.query.text"] for r in retrievals] == plan["queries"]
    for retrieval in retrievals:
        assert retrieval.parent.span_id == root.context.span_id
        assert retrieval.attributes["gen_ai.data_source.id"] == "test_docs"
        documents = json.loads(retrieval.attributes["gen_ai.retrieval.documents"])
        assert len(documents) == retrieval.attributes["ragwire.chunks"] == 2
        assert all(d["id"] and isinstance(d["score"], float) for d in documents)
        (embedding,) = [s for s in spans if s.parent is not None and s.parent.span_id == retrieval.context.span_id]
        assert embedding.name.startswith("embeddings ") and embedding.attributes["gen_ai.operation.name"] == "embeddings"
    assert ingested["processed"] == 10


def test_an_ingest_run_gets_a_span_with_its_counts(tmp_path, exporter):
    rag = RAGWire(write_config(tmp_path))
    stats = rag.ingest_documents([str(p) for p in write_topics(tmp_path / "docs")][:3])
    rag.close()
    (run,) = [s for s in exporter.get_finished_spans() if s.name == "ragwire ingest"]
    assert run.attributes["ragwire.processed"] == stats["processed"] == 3
    assert run.attributes["ragwire.chunks_created"] == stats["chunks_created"]
    assert run.attributes["gen_ai.data_source.id"] == "test_docs"


def test_retrieved_documents_stay_off_the_spans_unless_opted_in(tmp_path, exporter):
    rag = RAGWire(write_config(tmp_path))
    rag.ingest_documents([str(p) for p in write_topics(tmp_path / "docs")][:3])
    rag.query("How long does a full charge take?")
    rag.close()
    (retrieval,) = [s for s in exporter.get_finished_spans() if s.name.startswith("retrieval ")]
    assert "gen_ai.retrieval.documents" not in retrieval.attributes
    assert retrieval.attributes["ragwire.chunks"] >= 1


def test_a_query_without_a_tracer_imports_no_opentelemetry_and_still_gets_a_trace_id():
    code = textwrap.dedent("""
        import sys
        from ragwire.answer import Answerer
        from ragwire.retrieval import Hit

        class Fixed:
            def retrieve(self, query, options=None):
                return [Hit(text="A full charge takes three hours.", metadata={"source": "/d/a.md"}, id="1")]

        answerer = Answerer(Fixed(), extractive=lambda q, sources: ("Three hours [1].", False))
        first = answerer.query("How long, and how often should I oil it?", refine=True)
        second = answerer.query("How long does a charge take?")
        assert first.trace_id and second.trace_id and first.trace_id != second.trace_id, (first, second)
        print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
