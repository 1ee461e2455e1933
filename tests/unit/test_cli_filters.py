"""`ragwire retrieve --filter` parsing: every malformed filter is a usage error (exit 2), found before any loading."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ragwire.cli import main
from ragwire.cli.options import parse_filters


def retrieve(*filters: str):
    args = ["retrieve", "battery", "--config", "no-such-config.yaml"]
    for item in filters:
        args += ["--filter", item]
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize(("filters", "message"), [
    (("=pdf",), "'=pdf': the key is empty"),
    (("chunk_index>=abc",), "'chunk_index>=abc': 'abc' is not a number (a range bound must be a number)"),
    # Regression: mixing equality and a range on one key raised a raw TypeError.
    (("chunk_index=1", "chunk_index>=0"), "'chunk_index>=0': chunk_index has both an equality and a range filter"),
    (("chunk_index>=0", "chunk_index=1"), "'chunk_index=1': chunk_index has both an equality and a range filter"),
    (("novalue",), "'novalue': write key=value, key>=N, key<=N, key>N or key<N"),
    (("k>=",), "'k>=': the value is empty"),
    (("k=",), "'k=': the value is empty"),
    (("k<nan",), "'k<nan': 'nan' is not a number"),
    (("k>=1", "k>=2"), "'k>=2': k>= is given twice"),
])
def test_bad_filter_exits_2_with_one_line(filters, message):
    result = retrieve(*filters)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and errors[0].startswith("Error: Invalid value for --filter: ")
    assert message in errors[0]


def test_filter_forms_parse():
    parsed = parse_filters(("file_type=pdf", "file_type=DOCX", "chunk_index>=1", "chunk_index<3",
                             "score>0.5", "score<=2", "note=a=b"))
    assert parsed == {
        "file_type": ["pdf", "DOCX"],
        "chunk_index": {"gte": 1, "lt": 3},
        "score": {"gt": 0.5, "lte": 2},
        "note": "a=b",
    }


def test_equality_values_stay_text_for_the_search_to_convert():
    # the search converts "0012" to the field's type: kept as text it can match a string field
    assert parse_filters(("code=0012", "year=2024")) == {"code": "0012", "year": "2024"}


def test_no_filters_is_none():
    assert parse_filters(()) is None
