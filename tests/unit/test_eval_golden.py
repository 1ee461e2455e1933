"""ragwire.eval.golden: reading golden sets and matching retrieved metadata to expected ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragwire.errors import GoldenSetError
from ragwire.eval import MISS, GoldenEntry, GoldenSet

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the two shapes --------------------------------------------------------------------------------


def test_a_bare_list_of_entries_uses_the_default_matching():
    golden = GoldenSet.from_data([{"query": "How long does charging take?", "expected": ["user-guide.md"]}])
    assert golden.match_field == "source" and golden.match_mode == "basename"
    assert golden.entries == (GoldenEntry("How long does charging take?", ("user-guide.md",)),)


def test_a_mapping_sets_match_field_and_mode():
    golden = GoldenSet.from_data({
        "match_field": "file_name",
        "match_mode": "exact",
        "queries": [{"query": "q", "expected": "a.md"}],
    })
    assert (golden.match_field, golden.match_mode) == ("file_name", "exact")


def test_a_single_expected_string_is_accepted_unwrapped():
    [entry] = GoldenSet.from_data([{"query": "q", "expected": "a.md"}]).entries
    assert entry.expected == ("a.md",)


def test_filters_note_and_answerable_are_kept():
    golden = GoldenSet.from_data([
        {"query": "q", "expected": ["a.pdf"], "filters": {"file_type": "pdf"}, "note": "vague"},
        {"query": "What is the weather in Paris?", "answerable": False},
    ])
    first, second = golden.entries
    assert first.filters == {"file_type": "pdf"} and first.note == "vague" and first.answerable
    assert second.answerable is False and second.expected == ()


def test_yaml_and_json_files_load_the_same_set(tmp_path):
    data = {"queries": [{"query": "q", "expected": ["a.md", "b.md"]}], "match_mode": "contains"}
    from_yaml = GoldenSet.from_file(write(tmp_path, "g.yml", "match_mode: contains\nqueries:\n"
                                          "  - query: q\n    expected: [a.md, b.md]\n"))
    from_json = GoldenSet.from_file(write(tmp_path, "g.json", json.dumps(data)))
    assert from_yaml == from_json


def test_the_example_golden_set_in_the_repository_loads():
    golden = GoldenSet.from_file(REPO / "golden.example.yaml")
    assert len([e for e in golden if e.answerable]) >= 5


# -- errors ------------------------------------------------------------------------------------------


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.yaml: golden set not found"):
        GoldenSet.from_file(tmp_path / "nope.yaml")


def test_an_entry_without_expected_is_named_by_its_number(tmp_path):
    path = write(tmp_path, "golden.yaml", "- {query: a, expected: [x]}\n- {query: b, expected: [y]}\n- {query: c}\n")
    # guards issue 19.14: the published API's callers look for the key's name, 'expected'
    with pytest.raises(ValueError, match=r"golden.yaml: entry 3: missing key 'expected'"):
        GoldenSet.from_file(path)


def test_an_empty_query_is_refused():
    with pytest.raises(ValueError, match=r"^entry 1: query: must be a non-empty question"):
        GoldenSet.from_data([{"query": "  ", "expected": ["a"]}])


def test_an_unknown_entry_key_suggests_the_right_one():
    with pytest.raises(ValueError, match=r"entry 2: expectd: unknown key \(did you mean 'expected'\?\)"):
        GoldenSet.from_data([{"query": "a", "expected": "x"}, {"query": "b", "expectd": "y"}])


def test_an_unknown_set_key_suggests_the_right_one():
    with pytest.raises(ValueError, match=r"match_mod: unknown key \(did you mean 'match_mode'\?\)"):
        GoldenSet.from_data({"match_mod": "exact", "queries": [{"query": "a", "expected": "x"}]})


def test_an_unknown_match_mode_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"match_mode: 'prefix' is not one of basename, exact, contains"):
        GoldenSet.from_data({"match_mode": "prefix", "queries": [{"query": "a", "expected": "x"}]})


def test_an_empty_expected_list_is_refused_for_an_answerable_entry():
    with pytest.raises(ValueError, match=r"entry 1: expected: is empty"):
        GoldenSet.from_data([{"query": "a", "expected": []}])


def test_an_unanswerable_entry_lists_no_expected_documents():
    with pytest.raises(ValueError, match=r"entry 1: expected: an entry with answerable: false"):
        GoldenSet.from_data([{"query": "a", "expected": ["x"], "answerable": False}])


def test_filters_must_be_a_mapping():
    with pytest.raises(ValueError, match=r"entry 1: filters: must be a mapping"):
        GoldenSet.from_data([{"query": "a", "expected": "x", "filters": ["pdf"]}])


def test_a_mapping_without_queries_and_an_empty_set_are_refused():
    with pytest.raises(ValueError, match="no queries"):
        GoldenSet.from_data({"match_mode": "exact"})
    with pytest.raises(ValueError, match="the golden set has no queries"):
        GoldenSet.from_data([])


def test_invalid_yaml_names_the_file_and_line(tmp_path):
    with pytest.raises(ValueError, match=r"bad.yaml: not valid YAML: .* \(line 2\)"):
        GoldenSet.from_file(write(tmp_path, "bad.yaml", "- query: a\n  expected: x: y\n"))


def test_another_file_type_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"golden.txt: a golden set is a .yaml, .yml or .json file"):
        GoldenSet.from_file(write(tmp_path, "golden.txt", "[]"))


# -- matching ------------------------------------------------------------------------------------------


def _set(mode: str, field: str = "source") -> GoldenSet:
    return GoldenSet.from_data({"match_mode": mode, "match_field": field, "queries": [{"query": "q", "expected": "x"}]})


def test_basename_matching_compares_file_names_on_both_sides():
    golden = _set("basename")
    assert golden.identify({"source": "/data/docs/guide.md"}, ("docs/guide.md",)) == "docs/guide.md"
    assert golden.identify({"source": "s3://bucket/a/guide.md"}, ("guide.md",)) == "guide.md"
    assert golden.identify({"source": "/data/guide.md.bak"}, ("guide.md",)) == MISS


def test_exact_matching_needs_the_same_string():
    golden = _set("exact")
    assert golden.identify({"source": "/data/guide.md"}, ("/data/guide.md",)) == "/data/guide.md"
    assert golden.identify({"source": "/data/guide.md"}, ("guide.md",)) == MISS


def test_contains_matching_finds_the_expected_id_inside_the_value():
    golden = _set("contains")
    assert golden.identify({"source": "/data/2024/guide.md"}, ("2024/",)) == "2024/"


def test_the_match_field_is_read_from_metadata_and_a_missing_field_is_a_miss():
    golden = _set("exact", field="company")
    assert golden.identify({"company": "apple", "source": "/x.pdf"}, ("apple",)) == "apple"
    assert golden.identify({"source": "/apple.pdf"}, ("apple",)) == MISS


def test_a_chunk_matching_several_expected_ids_counts_as_the_first_listed():
    golden = _set("contains")
    assert golden.identify({"source": "/docs/user-guide.md"}, ("guide", "user")) == "guide"


def test_contains_parts_and_tags_are_read_with_each_part_checked():
    golden = GoldenSet.from_data({"queries": [
        {"query": "q", "expected": ["a.md", "b.md"], "contains": ["68 kg", 68], "tags": ["quantity"],
         "parts": [{"question": "p1", "expected": "a.md", "contains": "x"},
                   {"question": "p2", "answerable": False, "note": "absent: y"}]}]})
    entry = golden.entries[0]
    assert entry.contains == ("68 kg", "68") and entry.tags == ("quantity",)
    assert [p.question for p in entry.parts] == ["p1", "p2"]
    assert entry.parts[0].expected == ("a.md",) and entry.parts[0].contains == ("x",)
    assert entry.parts[1].answerable is False and entry.parts[1].expected == ()


def test_a_part_with_an_unknown_key_or_no_expected_file_is_named():
    with pytest.raises(GoldenSetError, match=r"entry 1: parts\[1\]: contain: unknown key \(did you mean 'contains'"):
        GoldenSet.from_data([{"query": "q", "expected": "a", "parts": [{"question": "p", "contain": "x"}]}])
    with pytest.raises(GoldenSetError, match=r"entry 1: parts\[2\]: expected: list the documents"):
        GoldenSet.from_data([{"query": "q", "expected": "a", "parts": [
            {"question": "p", "expected": "a"}, {"question": "p2"}]}])
