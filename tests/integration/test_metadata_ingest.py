"""LLM metadata through ingest, filters, auto_filter and the CLI, with the real ChatOpenAI client
talking to the stub server, the packaged embedding model and the embedded engine."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragwire import ConfigError, RAGWire
from ragwire.cli import main
from tests.stubs import StubServer

from .helpers import COMPANY_YEAR_SCHEMA, write_config

REPO = Path(__file__).resolve().parents[2]

SCHEMA = COMPANY_YEAR_SCHEMA

DOCS = {
    "apple-2023.md": "# Apple annual report\n\nApple Inc. grew services revenue in fiscal 2023. The iPhone remained "
                     "the largest product line.",
    "apple-2024.md": "# Apple results\n\nApple Inc. reported record services revenue in fiscal 2024, led by the App Store.",
    "microsoft-2024.md": "# Microsoft annual report\n\nMicrosoft Corporation grew cloud revenue in fiscal 2024 with Azure.",
}


def reply(body: dict) -> str:
    """What a good LLM would answer: the document's company and year, or the question's filters."""
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    user = str(body["messages"][-1].get("content", ""))
    if user.startswith("Question:"):
        company = "Apple Inc." if "apple" in user.lower() else None
        return json.dumps({"company": company, "year": None})
    company = "Apple Inc." if "Apple Inc." in text.split("Document", 1)[-1] else "Microsoft Corporation"
    year = 2024 if "fiscal 2024" in text else 2023
    return json.dumps({"company": company, "year": year})


def chat_calls(stub: StubServer) -> int:
    return len(stub.requests_to("/chat/completions"))


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _config(root: Path, base_url: str, **retriever) -> Path:
    (root / "metadata.yaml").write_text(SCHEMA, encoding="utf-8")
    return write_config(
        root,
        llm={"provider": "openai", "model": "stub-chat", "base_url": base_url, "api_key": "k", "timeout": 5},
        metadata={"config_file": str(root / "metadata.yaml")},
        ingestion={"retries": 0, "workers": 2},
        **({"retriever": retriever} if retriever else {}),
    )


def _docs(root: Path) -> Path:
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def stub():
    with StubServer(chat_reply=reply) as server:
        yield server


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, stub) -> RAGWire:
    root = tmp_path_factory.mktemp("metadata-up")
    rag = RAGWire(_config(root, stub.openai_url))
    stats = rag.ingest_directory(_docs(root))
    assert (stats["processed"], stats["failed"], stats["metadata_failed"]) == (3, 0, 0)
    return rag


def _files(docs) -> set[str]:
    return {d.metadata["file_name"] for d in docs}


def test_chunks_carry_the_extracted_fields_normalised(ingested):
    docs = ingested.retrieve("services revenue", top_k=10)
    by_file = {d.metadata["file_name"]: d.metadata for d in docs}
    assert by_file["apple-2024.md"]["company"] == "apple inc."
    assert by_file["apple-2024.md"]["year"] == 2024
    assert by_file["microsoft-2024.md"]["company"] == "microsoft corporation"
    assert {m["metadata_status"] for m in by_file.values()} == {"extracted"}


def test_one_llm_call_per_document_not_per_chunk(tmp_path, stub):
    folder = tmp_path / "docs"
    folder.mkdir()
    long_text = "# Apple\n\n" + "\n\n".join(f"Apple Inc. paragraph {i} about fiscal 2024. " * 20 for i in range(8))
    (folder / "long.md").write_text(long_text, encoding="utf-8")
    before = chat_calls(stub)
    stats = RAGWire(_config(tmp_path, stub.openai_url)).ingest_directory(folder)
    assert stats["chunks_created"] > 1
    assert chat_calls(stub) - before == 1


def test_a_filter_in_any_case_matches_the_stored_lower_case_value(ingested):
    for written in ("APPLE INC.", "Apple Inc.", "apple inc."):
        assert _files(ingested.retrieve("revenue", top_k=10, filters={"company": written})) == {
            "apple-2023.md", "apple-2024.md"}


def test_an_int_field_filters_by_range(ingested):
    found = ingested.retrieve("revenue", top_k=10, filters={"year": {"gte": 2024}})
    assert _files(found) == {"apple-2024.md", "microsoft-2024.md"}


def test_field_values_are_listed_most_frequent_first(ingested):
    assert ingested.get_field_values("company") == ["apple inc.", "microsoft corporation"]
    assert ingested.filter_fields[:2] == ["company", "year"]
    assert "file_hash" not in ingested.filter_fields


def test_explicit_filters_make_no_llm_call(ingested, stub):
    before = chat_calls(stub)
    ingested.retrieve("revenue", top_k=3, filters={"company": "microsoft corporation"})
    assert chat_calls(stub) == before


def test_extract_filters_maps_the_question_onto_a_stored_value(ingested):
    assert ingested.extract_filters("What did Apple earn?") == {"company": "apple inc."}
    assert ingested.extract_filters("What is a good recipe for bread?") is None


def test_auto_filter_applies_the_extracted_filters_and_reports_them(ingested, stub, tmp_path):
    data = yaml.safe_load(ingested.config_path.read_text(encoding="utf-8"))
    data["retriever"] = {"auto_filter": True}
    path = tmp_path / "auto.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    rag = RAGWire(path)
    assert _files(rag.retrieve("What did Apple report about revenue?", top_k=10)) == {"apple-2023.md", "apple-2024.md"}
    before = chat_calls(stub)
    answer = rag.query("What did Apple report about revenue?")
    assert answer.filters_used == {"company": "apple inc."}
    # one call for the filters and one for the answer; the nested retrieve does not ask again
    assert chat_calls(stub) - before == 2
    # and both are in the answer's usage: the stub reports 10 prompt tokens per reply
    assert answer.usage.llm_calls == 2 and answer.usage.prompt_tokens == 20


def test_filter_context_lists_fields_values_and_the_query_filters(ingested):
    block = ingested.get_filter_context("Apple results", limit=5)
    assert block.startswith("## RAGWire Filter Context")
    assert '- **company**: ["apple inc.", "microsoft corporation"]' in block
    assert "- **company**: `apple inc.`" in block


def test_auto_filter_without_an_llm_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="auto_filter.*needs an llm section"):
        RAGWire(write_config(tmp_path, retriever={"auto_filter": True}))


@pytest.mark.parametrize("broken", ["refused", "malformed"])
def test_an_llm_outage_loses_no_document_and_a_later_ingest_repairs_it_without_embedding(tmp_path, stub, broken):
    docs = _docs(tmp_path)
    if broken == "refused":
        url = _closed_port_url()
        down = StubServer(chat_reply=reply)  # not started: nothing to stop
    else:
        down = StubServer(chat_reply="{this is not json").start()
        url = down.openai_url
    try:
        rag = RAGWire(_config(tmp_path, url))
        stats = rag.ingest_directory(docs)
        assert (stats["processed"], stats["failed"], stats["metadata_failed"]) == (3, 0, 3)
        found = rag.retrieve("cloud revenue", top_k=10)
        assert "microsoft-2024.md" in _files(found)
        assert {d.metadata["metadata_status"] for d in found} == {"failed"}
        assert "company" not in found[0].metadata
    finally:
        if broken == "malformed":
            down.stop()
    rag.close()
    # the LLM is back (another URL, same model): the next plain ingest fills the fields in
    repaired = RAGWire(_config(tmp_path, stub.openai_url)).ingest_directory(docs)
    assert (repaired["processed"], repaired["metadata_failed"]) == (3, 0)
    assert repaired["embedded_chunks"] == 0 and repaired["reused_chunks"] == repaired["chunks_created"]
    again = RAGWire(_config(tmp_path, stub.openai_url))
    assert _files(again.retrieve("revenue", top_k=10, filters={"company": "microsoft corporation"})) == {
        "microsoft-2024.md"}
    # and a third run has nothing left to do
    assert again.ingest_directory(docs)["skipped"] == 3


def test_a_changed_schema_re_extracts_without_re_embedding(tmp_path, stub):
    docs = _docs(tmp_path)
    config = _config(tmp_path, stub.openai_url)
    RAGWire(config).ingest_directory(docs)
    schema = tmp_path / "metadata.yaml"
    schema.write_text(SCHEMA.replace("The company the document is about", "The company, lower case"), encoding="utf-8")
    stats = RAGWire(config).ingest_directory(docs)
    assert stats["processed"] == 3 and stats["embedded_chunks"] == 0


def test_file_properties_are_filterable_without_an_llm(examples_store, examples_config):
    assert examples_store.stats["failed"] == 0
    rag = RAGWire(examples_config)
    dated = _files(rag.retrieve("robot", top_k=50, filters={"year": 2000}))
    assert dated == {"warranty-policy.pdf"}
    titled = rag.retrieve("robot", top_k=50, filters={"title": "aurora ar-7 firmware release notes"})
    assert _files(titled) == {"release-notes.docx"}
    assert {d.metadata["author"] for d in rag.retrieve("robot", top_k=50, filters={"author": "Northwind Robotics"})} == {
        "Northwind Robotics"}
    assert {d.metadata["metadata_status"] for d in titled} == {"skipped"}
    for field in ("title", "author", "year", "language", "page_count"):
        assert field in rag.filter_fields


def test_only_filterable_fields_get_indexes_and_the_rest_still_filter(examples_store, examples_config):
    from ragwire.fields import SCANNED_FIELDS

    assert examples_store.stats["failed"] == 0
    rag = RAGWire(examples_config)
    indexed = set(rag.collection.indexes())
    # ragwire's page, heading and bookkeeping fields: no index, each would slow every open
    assert not {path.split(".", 1)[1] for path in indexed if "." in path} & SCANNED_FIELDS
    # a file property is filtered case-insensitively: only its lower-cased copy is indexed
    assert "_ci.author" in indexed and "metadata.author" not in indexed
    assert len(indexed) < 20
    # ... and a filter on an unindexed field still works: the search reads the chunks
    first_pages = rag.retrieve("warranty", top_k=50, filters={"file_name": "warranty-policy.pdf", "page_number": 1})
    assert first_pages and {d.metadata["page_number"] for d in first_pages} == {1}
    slide = rag.retrieve("robot", top_k=50, filters={"page_label": "WHO TO CALL"})
    assert {d.metadata["page_label"] for d in slide} == {"Who to call"}
    # reading a field's values gives them as stored, through an exact-case index made then
    assert rag.get_field_values("author") == ["Northwind Robotics"]
    assert "metadata.author" in rag.collection.indexes()


def test_the_fields_command_lists_fields_and_their_values(ingested):
    result = CliRunner().invoke(main, ["fields", "--values", "--config", str(ingested.config_path)])
    assert result.exit_code == 0, result.output
    assert "company: apple inc., microsoft corporation" in result.output.splitlines()
    as_json = json.loads(CliRunner().invoke(main, ["fields", "--json", "--config", str(ingested.config_path)]).output)
    assert as_json["values"]["year"][0] == 2024


def test_retrieve_auto_filter_prints_the_filters_it_used(ingested):
    result = CliRunner().invoke(
        main, ["retrieve", "Apple revenue", "--auto-filter", "-k", "5", "--config", str(ingested.config_path)])
    assert result.exit_code == 0, result.output
    assert 'filters: {"company": "apple inc."}' in result.stderr
    assert "microsoft" not in result.output
