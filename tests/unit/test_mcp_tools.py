"""ragwire.mcp tool functions over a fake pipeline: the text an agent reads, filter parsing, hidden fields."""

from __future__ import annotations

import subprocess
import sys

import pytest
from langchain_core.documents import Document

from ragwire.answer import Answer, Citation
from ragwire.mcp import answer_question, collection_stats, get_filter_context, search_documents
from ragwire.mcp.tools import REFUSAL, parse_filters, visible_metadata


class FakeRag:
    def __init__(self, docs=(), answer=None, fields=("year",), chunks=39, llm_error=None):
        self.docs = list(docs)
        self.answer = answer
        self.filter_fields = list(fields)
        self.chunks = chunks
        self.llm_error = llm_error
        self.calls = []

    def retrieve(self, query, top_k=None, filters=None):
        self.calls.append(("retrieve", query, top_k, filters))
        return self.docs[:top_k]

    def query(self, question, top_k=None, filters=None):
        self.calls.append(("query", question, top_k, filters))
        return self.answer

    def get_filter_context(self, query, limit=50):
        self.calls.append(("context", query))
        if query and self.llm_error:
            raise self.llm_error  # reading filters from a query is the only part that calls the LLM
        return "## RAGWire Filter Context\n- **year**: [2024]\n"

    def get_stats(self):
        return {"collection_name": "docs", "total_documents": self.chunks, "vector_size": 384, "sources": 7,
                "embedding_model": "huggingface:mini"}


def doc(text, **meta):
    return Document(page_content=text, metadata=meta)


WARRANTY = doc(
    "The warranty lasts 24 months.", source="/d/warranty.pdf", file_name="warranty.pdf", page_number=2,
    score=0.71, score_type="cosine", year=2024, content_hash="abc", chunk_hash="def", chunk_id="x-1",
    chunk_index=3, total_chunks=9, file_hash="f00", created_at="2026-01-01", metadata_status="extracted",
    sync_source="docs", score_max=1.0, _internal="hidden",
)
GUIDE = doc("Dock the robot nightly.", source="/d/guide.md", file_name="guide.md",
            heading_path="Charging › Docking", score=0.5, score_type="cosine")


def test_search_numbers_sources_with_file_and_page_or_heading():
    text = search_documents(FakeRag([WARRANTY, GUIDE]), "warranty", top_k=2)
    assert text.startswith("2 passages for 'warranty':")
    assert "[1] warranty.pdf, page 2 (cosine score 0.710)" in text
    assert "[2] guide.md › Charging › Docking (cosine score 0.500)" in text
    assert "source: /d/warranty.pdf" in text and "metadata: year: 2024" in text
    assert "The warranty lasts 24 months." in text


def test_search_hides_internal_fields():
    text = search_documents(FakeRag([WARRANTY]), "warranty")
    for hidden in ("abc", "def", "x-1", "chunk_index", "total_chunks", "f00", "created_at", "metadata_status",
                   "sync_source", "score_max", "_internal", "hidden"):
        assert hidden not in text, hidden
    assert visible_metadata({"a": 1, "_b": 2, "content_hash": "h", "chunk_id": "c"}) == {"a": 1}


def test_filters_as_dict_or_json_string_reach_retrieve():
    rag = FakeRag([WARRANTY])
    search_documents(rag, "warranty", filters={"year": 2024})
    search_documents(rag, "warranty", filters='{"year": {"gte": 2023}}')
    search_documents(rag, "warranty", filters="  ")
    assert [c[3] for c in rag.calls] == [{"year": 2024}, {"year": {"gte": 2023}}, None]


@pytest.mark.parametrize(("value", "message"), [
    ("{not json", r"filters is not valid JSON .*Send a JSON object such as .*get_filter_context"),
    ("[1, 2]", r"filters must be a JSON object .*not list"),
    (42, r"filters must be a JSON object .*not int"),
])
def test_unparseable_filters_raise_an_actionable_value_error(value, message):
    with pytest.raises(ValueError, match=message):
        parse_filters(value)
    with pytest.raises(ValueError, match=message):
        search_documents(FakeRag([WARRANTY]), "warranty", filters=value)


def test_bad_query_or_top_k_is_a_value_error():
    with pytest.raises(ValueError, match="query is empty"):
        search_documents(FakeRag(), "  ")
    with pytest.raises(ValueError, match="top_k must be a whole number from 1 to 50"):
        answer_question(FakeRag(), "why?", top_k=0)


def test_no_results_says_why():
    assert "collection may be empty" in search_documents(FakeRag(), "anything")
    assert "Call get_filter_context" in search_documents(FakeRag(), "anything", filters={"year": 1999})


def citation(index, **kw):
    base = dict(index=index, source="/d/warranty.pdf", file_name="warranty.pdf", text="t", snippet="t", metadata={})
    return Citation(**{**base, **kw})


def test_answer_lists_its_cited_sources_in_order():
    answer = Answer(text="It lasts 24 months [1]. Dock nightly [2].",
                    citations=[citation(2, file_name="guide.md", heading_path="Docking"), citation(1, page_number=2)],
                    filters_used={"year": 2024})
    rag = FakeRag(answer=answer)
    text = answer_question(rag, "How long?", top_k=3, filters='{"year": 2024}')
    assert text.splitlines() == ["It lasts 24 months [1]. Dock nightly [2].", "", "Sources:",
                                 "[1] warranty.pdf, page 2", "[2] guide.md › Docking", "",
                                 'Filters used: {"year": 2024}']
    assert rag.calls == [("query", "How long?", 3, {"year": 2024})]


def test_a_refusal_says_plainly_the_documents_do_not_contain_the_answer():
    text = answer_question(FakeRag(answer=Answer(text="I could not find it.", refused=True)), "Who won in 1998?")
    assert text == REFUSAL
    assert text.startswith("The documents do not contain the answer") and "own knowledge" in text


def test_a_refusal_with_filters_that_match_nothing_says_so():
    # guards: answer_question gave the generic refusal when the filters excluded every document
    refused = Answer(text="No documents match the filters {'year': 1999}", refused=True, documents=[],
                     filters_used={"year": 1999})
    text = answer_question(FakeRag(answer=refused), "How long?", filters={"year": 1999})
    assert text.startswith('No documents match the filters {"year": 1999}, so there is nothing to answer from.')
    assert "get_filter_context" in text and "without filters" in text


def test_a_refusal_on_an_empty_collection_says_so():
    # guards: answer_question gave the generic refusal when the collection was empty
    refused = Answer(text="There is nothing to search", refused=True, documents=[])
    for filters in (None, {"year": 2024}):
        text = answer_question(FakeRag(answer=refused, chunks=0), "How long?", filters=filters)
        assert text.startswith("The collection is empty: there is nothing to answer from."), text
        assert "own knowledge" in text


def test_a_refusal_after_reading_filtered_passages_names_the_filters():
    refused = Answer(text="not in the documents", refused=True, documents=[doc("x")], filters_used={"year": 2024})
    text = answer_question(FakeRag(answer=refused), "Who won in 1998?", filters={"year": 2024})
    assert text == REFUSAL + ' Only documents matching the filters {"year": 2024} were searched.'


def test_filter_context_without_the_llm_still_lists_the_fields():
    # guards: get_filter_context failed entirely when the LLM was down, though the fields need none
    from ragwire.errors import ProviderError

    rag = FakeRag(llm_error=ProviderError("LLM call failed (model x): connection refused\nat 127.0.0.1:9"))
    text = get_filter_context(rag, "warranty in 2024")
    assert text.startswith("## RAGWire Filter Context\n- **year**: [2024]")
    assert ("Note: filter suggestions for this query are unavailable (the LLM could not be used: "
            "LLM call failed (model x): connection refused at 127.0.0.1:9)") in text
    assert "JSON object" in text
    assert rag.calls == [("context", "warranty in 2024"), ("context", "")]


def test_filter_context_and_stats():
    rag = FakeRag()
    context = get_filter_context(rag, "2024 warranty")
    assert context.startswith("## RAGWire Filter Context") and "JSON object" in context
    assert rag.calls == [("context", "2024 warranty")]
    assert "No fields to filter on" in get_filter_context(FakeRag(fields=()))
    assert collection_stats(rag).splitlines() == [
        "collection: docs", "chunks: 39", "documents: 7", "vector size: 384", "embedding model: huggingface:mini"]


def test_build_server_without_mcp_names_the_install_command(monkeypatch):
    from ragwire.mcp import build_server

    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    with pytest.raises(ImportError, match=r'pip install "ragwire\[mcp\]"'):
        build_server(FakeRag())


def test_importing_ragwire_mcp_does_not_import_mcp():
    code = "import sys, ragwire.mcp; assert 'mcp' not in sys.modules and 'mcp.server' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_server_lists_four_tools_with_descriptions_and_schemas():
    pytest.importorskip("mcp")
    import asyncio

    from ragwire.mcp import build_server

    tools = {t.name: t for t in asyncio.run(build_server(FakeRag()).list_tools())}
    assert sorted(tools) == ["answer_question", "collection_stats", "get_filter_context", "search_documents"]
    schema = tools["search_documents"].input_schema
    assert schema["required"] == ["query"] and schema["properties"]["top_k"]["maximum"] == 50
    assert all(t.description for t in tools.values())
    assert "do not fill the gap" in tools["answer_question"].description
