"""Filters checked against the collection's fields: unknown fields, empty lists and type conversion."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import pytest

from ragwire.errors import ConfigError
from ragwire.retrieval.search import Searcher
from ragwire.store.filters import Cond, Filter, build_filter, known_fields

from ..conftest import WordEmbedding

INDEXES = {
    "metadata.file_name": "keyword", "_ci.file_name": "keyword",
    "metadata.chunk_index": "integer", "metadata.score": "float", "metadata.draft": "bool",
    "metadata.year": "keyword", "_ci.year": "keyword",
    "_state": "keyword", "_run": "keyword",
}
FIELDS = known_fields(INDEXES)


def only(flt: Filter) -> Cond:
    assert flt is not None and len(flt.must) == 1
    return flt.must[0]


def test_known_fields_strip_prefixes_and_skip_internal_keys():
    assert FIELDS == {
        "file_name": {"keyword"}, "chunk_index": {"integer"}, "score": {"float"},
        "draft": {"bool"}, "year": {"keyword"},
    }


def test_misspelled_field_is_an_error_with_did_you_mean():
    # Regression: `--filter file_nmae=x.md` searched for nothing and reported an empty collection.
    with pytest.raises(ConfigError, match=r"filters\.file_nmae: no stored chunk has this field \(did you mean 'file_name'\?\)"):
        build_filter({"file_nmae": "x.md"}, FIELDS)


def test_unknown_field_without_a_close_match_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r"filters\.zzz: no stored chunk has this field \(known fields: chunk_hash, "):
        build_filter({"zzz": 1}, FIELDS)


def test_metadata_prefix_and_unindexed_system_keys_are_accepted():
    assert only(build_filter({"metadata.file_name": "A.md"}, FIELDS)) == Cond("_ci.file_name", value="a.md")
    assert only(build_filter({"chunk_id": "ABC"}, FIELDS)) == Cond("_ci.chunk_id", value="abc")


def test_empty_any_of_list_is_an_error():
    # Regression: an empty list was dropped, so the search ran unfiltered.
    with pytest.raises(ConfigError, match=r"filters\.file_name: an empty list matches nothing"):
        build_filter({"file_name": []})
    with pytest.raises(ConfigError, match=r"filters\.file_name: an empty list matches nothing"):
        build_filter({"file_name": []}, FIELDS)


@pytest.mark.parametrize(("value", "expected"), [
    ({"chunk_index": "2024"}, Cond("metadata.chunk_index", value=2024)),
    ({"chunk_index": " -3 "}, Cond("metadata.chunk_index", value=-3)),
    ({"chunk_index": 4.0}, Cond("metadata.chunk_index", value=4)),
    ({"score": "3.5"}, Cond("metadata.score", range={"gte": 3.5, "lte": 3.5})),
    ({"score": 3}, Cond("metadata.score", range={"gte": 3.0, "lte": 3.0})),
    ({"draft": "True"}, Cond("metadata.draft", value=True)),
    ({"draft": "false"}, Cond("metadata.draft", value=False)),
    ({"year": "0012"}, Cond("_ci.year", value="0012")),
])
def test_values_convert_to_the_field_type_when_unambiguous(value, expected):
    assert only(build_filter(value, FIELDS)) == expected


def test_list_items_convert_too():
    assert only(build_filter({"chunk_index": ["1", "2"]}, FIELDS)) == Cond("metadata.chunk_index", any_of=(1, 2))
    assert only(build_filter({"score": [1, 2.5]}, FIELDS)) == Filter(should=[
        Cond("metadata.score", range={"gte": 1.0, "lte": 1.0}), Cond("metadata.score", range={"gte": 2.5, "lte": 2.5})])


@pytest.mark.parametrize("fields", [FIELDS, None])
def test_a_list_mixing_types_is_an_error_naming_the_field(fields):
    # guards issue 34: {"language": ["en", 3]} was accepted
    with pytest.raises(ConfigError, match=r"filters\.year: a list mixes strings and numbers \(\['2023', 2024\]\)"):
        build_filter({"year": ["2023", 2024]}, fields)
    with pytest.raises(ConfigError, match=r"filters\.draft: a list mixes booleans and numbers"):
        build_filter({"draft": [True, 1]}, fields)


@pytest.mark.parametrize(("value", "message"), [
    ({"chunk_index": "abc"}, r"filters\.chunk_index: 'abc' is not an integer \(the field holds integers\)"),
    ({"chunk_index": 1.5}, r"filters\.chunk_index: 1\.5 is not an integer"),
    ({"chunk_index": True}, r"filters\.chunk_index: True is not an integer"),
    ({"score": "high"}, r"filters\.score: 'high' is not a number \(the field holds numbers\)"),
    ({"draft": "yes"}, r"filters\.draft: 'yes' is not true or false \(the field holds booleans\)"),
    ({"draft": 1}, r"filters\.draft: 1 is not true or false"),
    ({"year": 20.5}, r"filters\.year: 20\.5 is not a string \(the field holds strings\)"),
    # guards issue 34: a number for a string field matched the text "5" and quietly found nothing
    ({"year": 2024}, r"filters\.year: 2024 is not a string \(the field holds strings\)"),
    ({"file_name": [5]}, r"filters\.file_name: 5 is not a string"),
    ({"chunk_index": ["1", "x"]}, r"filters\.chunk_index: 'x' is not an integer"),
])
def test_values_the_field_type_cannot_hold_are_errors(value, message):
    with pytest.raises(ConfigError, match=message):
        build_filter(value, FIELDS)


def test_range_bounds_must_be_numbers():
    assert only(build_filter({"chunk_index": {"gte": "1", "lt": 4}}, FIELDS)).range == {"gte": 1.0, "lt": 4.0}
    with pytest.raises(ConfigError, match=r"filters\.chunk_index\.gte: 'abc' is not a number \(a range bound must be a number\)"):
        build_filter({"chunk_index": {"gte": "abc"}}, FIELDS)
    # a field of unknown kind may hold timestamps: the bound may be a date too
    with pytest.raises(ConfigError, match=r"filters\.chunk_index\.gte: 'abc' is not a number or a date"):
        build_filter({"chunk_index": {"gte": "abc"}})
    with pytest.raises(ConfigError, match=r"filters\.chunk_index\.lte: True is not a number"):
        build_filter({"chunk_index": {"lte": True}}, FIELDS)


def test_range_on_a_string_field_is_an_error():
    with pytest.raises(ConfigError, match=r"filters\.file_name: a range needs a numeric field \(the field holds strings\)"):
        build_filter({"file_name": {"gte": 1}}, FIELDS)


def test_without_fields_values_are_compared_as_given():
    # an empty collection has no fields to check against; strings still match case-insensitively
    assert only(build_filter({"anything": "X"})) == Cond("_ci.anything", value="x")
    assert only(build_filter({"anything": 3})) == Cond("metadata.anything", value=3)


# --- the searcher asks the collection for its fields ------------------------------------------------


class FakeCollection:
    """A collection holding ``metadata`` on each chunk; ``indexes`` as the engine reports them."""

    def __init__(self, chunks: list[dict], indexes: dict[str, str]) -> None:
        self.chunks = chunks
        self._indexes = indexes
        self.searched: list[Filter | None] = []
        self.read = 0

    @contextlib.contextmanager
    def opened(self):
        yield self

    def count(self, flt=None) -> int:
        return len(self.chunks)

    def indexes(self) -> dict[str, str]:
        return self._indexes

    def scroll(self, flt=None, *, limit, offset=None, fields=None):
        start = offset or 0
        page = self.chunks[start:start + limit]
        self.read += len(page)
        after = start + limit
        return [SimpleNamespace(payload={"metadata": meta}) for meta in page], (after if after < len(self.chunks) else None)

    def search(self, *, flt=None, **kwargs):
        self.searched.append(flt)
        return []


def search(collection: FakeCollection, filters: dict) -> Filter | None:
    Searcher(collection, WordEmbedding(), None).search("q", filters=filters)
    return collection.searched[-1]


def test_searcher_checks_fields_from_the_indexes_without_reading_chunks():
    collection = FakeCollection([{"file_name": "a.md"}], INDEXES)
    assert only(search(collection, {"chunk_index": "2"})) == Cond("metadata.chunk_index", value=2)
    assert collection.read == 0


def test_searcher_refuses_a_field_no_chunk_has():
    collection = FakeCollection([{"file_name": "a.md"}] * 2500, INDEXES)
    with pytest.raises(ConfigError, match=r"did you mean 'file_name'"):
        search(collection, {"file_nmae": "a.md"})
    assert collection.read == 2500  # every chunk was read before refusing


def test_searcher_skips_field_checks_on_an_empty_collection():
    assert only(search(FakeCollection([], {}), {"nothing_yet": "x"})) == Cond("_ci.nothing_yet", value="x")


def test_a_stored_field_missing_from_the_indexes_is_found_in_the_chunks():
    # Only the first chunk of a write decides the indexes: a later chunk's field has none.
    chunks = [{"file_name": "a.md", "chunk_index": 0}] * 1500 + [{"file_name": "a.md", "chunk_index": 1, "page": 2}]
    collection = FakeCollection(chunks, INDEXES)
    assert only(search(collection, {"page": "2"})) == Cond("metadata.page", value=2)


def test_searcher_reads_chunks_when_the_engine_keeps_no_indexes():
    chunks = [{"file_name": "a.md", "chunk_index": 0}, {"file_name": "b.md", "chunk_index": 1, "page": 2}]
    collection = FakeCollection(chunks, {})
    assert search(collection, {"page": "2", "chunk_index": ["0", "1"]}).must == [
        Cond("metadata.page", value=2), Cond("metadata.chunk_index", any_of=(0, 1)),
    ]
    with pytest.raises(ConfigError, match=r"filters\.pgae: no stored chunk has this field \(did you mean 'page'\?\)"):
        search(collection, {"pgae": 2})


def test_past_the_scan_limit_an_unseen_field_is_compared_as_given(monkeypatch):
    monkeypatch.setattr("ragwire.retrieval.search._FIELD_PAGE", 10)
    monkeypatch.setattr("ragwire.retrieval.search._FIELD_SCAN_LIMIT", 30)
    collection = FakeCollection([{"file_name": "a.md"}] * 100, INDEXES)
    assert only(search(collection, {"rare_field": "X"})) == Cond("_ci.rare_field", value="x")
    assert collection.read == 30


def test_a_filter_value_the_engine_cannot_take_is_a_filters_error_naming_the_field():
    # Guards: `-f 'file_type=<0xff>'` and `-f chunk_index=99999999999999999999999` showed raw engine text.
    not_utf8 = b"\xff".decode("utf-8", "surrogateescape")  # what a shell argument of that byte becomes
    with pytest.raises(ConfigError, match=r"filters\.file_type: '\\xff' is not valid UTF-8 text"):
        build_filter({"file_type": not_utf8})
    with pytest.raises(ConfigError, match=r"filters\.chunk_index: 99999999999999999999999 is out of range"):
        build_filter({"chunk_index": 99999999999999999999999})
    assert build_filter({"chunk_index": 2**63 - 1}) is not None
