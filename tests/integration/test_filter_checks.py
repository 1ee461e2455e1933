"""Filters that cannot match and an LLM that is down, through retrieve(), query() and the CLI.

The packaged embedding model and the embedded engine; the LLM is ChatOpenAI
pointed at a closed port, so every extraction and filter extraction fails.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragwire import ConfigError, RAGWire
from ragwire.cli import main

from .helpers import write_config

DOCS = {
    "charging.md": "# Docking\n\nDock the robot at its charging station every night. A full charge takes three hours.",
    "garden.md": "# Garden\n\nTomatoes need six hours of sun and deep watering twice a week.",
}


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("llm-down")
    folder = root / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    path = write_config(
        root,
        llm={"provider": "openai", "model": "stub-chat", "base_url": _closed_port_url(), "api_key": "k", "timeout": 2},
        ingestion={"retries": 0},
    )
    stats = RAGWire(path).ingest_directory(folder)
    assert (stats["processed"], stats["metadata_failed"]) == (2, 2)
    return path


def test_retrieve_auto_filter_with_the_llm_down_warns_and_searches_unfiltered(config):
    # guards issue 19.10: `retrieve --auto-filter` exited 1 when the LLM failed
    result = CliRunner().invoke(main, ["retrieve", "charging station", "--auto-filter", "--json", "-k", "2",
                                       "--config", str(config)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: auto-filter: no filters extracted, searching unfiltered: LLM filter extraction")
    hits = json.loads(result.stdout)
    assert [h["metadata"]["file_name"] for h in hits][0] == "charging.md" and len(hits) == 2


def test_a_null_filter_value_is_an_error_in_retrieve_and_query(config):
    # guards issue 19.10: the null filter was skipped, the search ran unfiltered, and filters_used showed it
    rag = RAGWire(config)
    message = r"^filters: filters\.file_type: null matches nothing \(give a value, or leave the key out\)$"
    with pytest.raises(ConfigError, match=message):
        rag.retrieve("charging", filters={"file_type": None})
    with pytest.raises(ConfigError, match=message):
        rag.query("How long does charging take?", filters={"file_type": None})


def test_a_filter_number_beyond_the_engine_range_is_a_one_line_filter_error(config):
    # guards issue 19.10: {"chunk_index": 1e308} surfaced the engine's "failed to extract enum Helper" message
    rag = RAGWire(config)
    with pytest.raises(ConfigError, match=r"^filters: filters\.chunk_index: 1e\+308 is out of range") as info:
        rag.retrieve("charging", filters={"chunk_index": 1e308})
    assert "\n" not in str(info.value) and "Helper" not in str(info.value)
    assert len(rag.retrieve("charging", filters={"chunk_index": {"lte": 1e308}})) == 2  # a bound is fine


def _search_paths(rag):
    """Every way a caller hands filters to a search: the Python API, its LangChain pieces and the CLI."""
    from ragwire.retrieval.vectorstore import RagwireVectorStore, get_retriever, hybrid_search, mmr_search

    store = RagwireVectorStore(rag.searcher)

    def cli(filters):
        result = CliRunner().invoke(main, ["retrieve", "charging", "--json", "--config", str(rag.config_path),
                                           *[f"-f{key}={json.dumps(value)}" for key, value in filters.items()]])
        if result.exit_code != 0:
            raise ConfigError(result.stderr.strip())
        return json.loads(result.stdout)

    return {
        "retrieve": lambda f: rag.retrieve("charging", filters=f),
        "hybrid_search": lambda f: rag.hybrid_search("charging", filters=f),
        "query": lambda f: rag.query("How long does charging take?", filters=f),
        "as_retriever": lambda f: rag.as_retriever(filters=f).invoke("charging"),
        "store.similarity_search": lambda f: store.similarity_search("charging", filter=f),
        "store.mmr": lambda f: mmr_search(store, "charging", filters=f),
        "store.hybrid": lambda f: hybrid_search(store, "charging", filters=f),
        "get_retriever": lambda f: get_retriever(store).model_copy(
            update={"retrieve_kwargs": {"filters": f}}).invoke("charging"),
    }


@pytest.mark.parametrize(("filters", "message"), [
    ({"title": 5}, r"filters\.title: 5 is not a string \(the field holds strings\)"),
    ({"file_type": ["md", 3]}, r"filters\.file_type: a list mixes strings and numbers"),
    ({"file_type": None}, r"filters\.file_type: null matches nothing"),
    ({"chunk_index": {"gte": 10**400}}, r"filters\.chunk_index\.gte: 10000000… \(401 digits\) is out of range"),
], ids=["number-for-text", "mixed-list", "null", "huge-bound"])
def test_every_search_path_refuses_a_filter_value_the_field_cannot_hold(config, filters, message):
    # guards issue 36.6: the LangChain store, hybrid_search(), mmr_search() and get_retriever() skipped the
    # null check (a null searched unfiltered) and a huge bound raised OverflowError; one check now serves all
    rag = RAGWire(config)
    for name, search in _search_paths(rag).items():
        with pytest.raises(ConfigError, match=message) as info:
            search(filters)
        assert "\n" not in str(info.value), name


def test_get_retriever_and_as_retriever_return_one_class(config):
    # guards issue 36.5: two classes were both called RagwireRetriever
    from ragwire import RagwireRetriever
    from ragwire.retrieval.vectorstore import RagwireVectorStore, get_retriever

    rag = RAGWire(config)
    bare = get_retriever(RagwireVectorStore(rag.searcher), top_k=1, search_type="keyword")
    assert type(bare) is type(rag.as_retriever()) is RagwireRetriever
    assert [d.metadata["file_name"] for d in bare.invoke("charging station")] == ["charging.md"]
