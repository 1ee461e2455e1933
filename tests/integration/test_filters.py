"""Filters on a real collection: unknown fields and bad values are errors, not empty results."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main
from ragwire.errors import ConfigError

from .helpers import write_config, write_topics


@pytest.fixture(scope="module")
def topics(tmp_path_factory):
    root = tmp_path_factory.mktemp("filters")
    docs = write_topics(root / "docs")
    config = write_config(root)
    rag = RAGWire(config)
    assert rag.ingest_documents([str(p) for p in docs])["processed"] == len(docs)
    return rag, str(config)


def names(docs) -> list[str]:
    return sorted(d.metadata["file_name"] for d in docs)


def test_misspelled_field_raises_with_did_you_mean(topics):
    rag, _ = topics
    with pytest.raises(ConfigError, match=r"filters\.file_nmae: no stored chunk has this field \(did you mean 'file_name'\?\)"):
        rag.retrieve("battery", filters={"file_nmae": "birds.md"})


def test_empty_any_of_list_errors(topics):
    rag, _ = topics
    with pytest.raises(ConfigError, match=r"filters\.file_name: an empty list matches nothing"):
        rag.retrieve("battery", filters={"file_name": []})


def test_numeric_strings_match_integer_fields(topics):
    rag, _ = topics
    as_text = rag.retrieve("battery", top_k=20, filters={"chunk_index": "0", "file_name": "BIRDS.MD"})
    as_int = rag.retrieve("battery", top_k=20, filters={"chunk_index": 0, "file_name": "birds.md"})
    assert names(as_text) == names(as_int) == ["birds.md"]
    ranged = rag.retrieve("battery", top_k=20, filters={"chunk_index": {"gte": "0", "lte": "0"}})
    assert len(ranged) == 10


def test_text_for_an_integer_field_errors(topics):
    rag, _ = topics
    with pytest.raises(ConfigError, match=r"filters\.chunk_index: 'abc' is not an integer \(the field holds integers\)"):
        rag.retrieve("battery", filters={"chunk_index": "abc"})


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_cli_unknown_field_is_one_line_and_exit_1(topics):
    # Regression: `--filter file_nmae=x.md` printed "no results (is the collection empty? …)" and exited 0.
    _, config = topics
    result = run("retrieve", "battery", "--config", config, "--filter", "file_nmae=x.md")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "filters.file_nmae: no stored chunk has this field (did you mean 'file_name'?)" in lines[0]


def test_cli_converts_values_to_the_field_type(topics):
    _, config = topics
    result = run("retrieve", "battery", "--config", config, "-f", "file_name=garden.md", "-f", "chunk_index=0",
                 "-f", "total_chunks>0")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("1. garden.md")


def test_cli_says_the_filters_matched_nothing(topics):
    _, config = topics
    result = run("retrieve", "battery", "--config", config, "-f", "file_name=nothing.md")
    assert result.exit_code == 0
    assert result.stdout.strip() == "no results: no chunk matched the filters"


def test_cli_bad_value_for_an_integer_field_is_exit_1(topics):
    _, config = topics
    result = run("retrieve", "battery", "--config", config, "-f", "chunk_index=abc")
    assert result.exit_code == 1
    assert "filters.chunk_index: 'abc' is not an integer (the field holds integers)" in result.stderr


def test_a_field_only_later_chunks_have_is_still_filterable(tmp_path):
    # The first chunk has no heading, and indexes follow the first chunk of a file:
    # heading_path is stored but not indexed, and must not be refused as unknown.
    notes = tmp_path / "docs" / "notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(
        "Intro text before any heading, long enough to be its own chunk. " * 8
        + "\n\n# Part A\n\n" + "Alpha details about pumps. " * 20
        + "\n\n# Part B\n\n" + "Beta details about valves. " * 20,
        encoding="utf-8",
    )
    rag = RAGWire(write_config(tmp_path))
    rag.ingest_documents([str(notes)])
    docs = rag.retrieve("pumps", top_k=10, filters={"heading_path": "PART A"})
    assert docs and {d.metadata["heading_path"] for d in docs} == {"Part A"}
    with pytest.raises(ConfigError, match=r"filters\.heading_pth: .*did you mean 'heading_path'"):
        rag.retrieve("pumps", filters={"heading_pth": "part a"})
