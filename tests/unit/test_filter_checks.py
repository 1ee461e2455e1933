"""check_filters: values no chunk can match are refused before the engine sees them."""

from __future__ import annotations

import pytest

from ragwire import ConfigError
from ragwire.store.filters import check_filters


@pytest.mark.parametrize(("filters", "message"), [
    ({"file_type": None}, r"^filters: filters\.file_type: null matches nothing \(give a value, or leave the key out\)$"),
    ({"file_type": ["pdf", None]}, r"^filters: filters\.file_type: null in a list matches nothing"),
    ({"year": {"gte": None}}, r"^filters: filters\.year\.gte: null as a range bound matches nothing"),
])
def test_a_null_filter_value_is_an_error(filters, message):
    # guards issue 19.10: {"file_type": null} was skipped, yet reported in filters_used
    with pytest.raises(ConfigError, match=message):
        check_filters(filters)


@pytest.mark.parametrize(("filters", "message"), [
    ({"year": 1e308}, r"^filters: filters\.year: 1e\+308 is out of range \(a number to match must fit in a 64-bit integer\)$"),
    ({"year": -1e308}, r"filters\.year: -1e\+308 is out of range"),
    ({"year": 2**63}, r"filters\.year: 9223372036854775808 is out of range"),
    ({"year": [2024, 10**30]}, r"filters\.year: 10000000… \(31 digits\) is out of range"),
    ({"year": {"gte": 10**400}}, r"filters\.year\.gte: 10000000… \(401 digits\) is out of range \(a range bound must be a finite number\)"),
])
def test_a_number_beyond_the_engine_range_is_a_one_line_filter_error(filters, message):
    # guards issue 19.10: {"year": 1e308} surfaced the engine's internal type error
    with pytest.raises(ConfigError, match=message) as info:
        check_filters(filters)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("filters", [
    None, {}, {"year": 2**63 - 1}, {"year": -(2**63)}, {"ratio": 1.5}, {"year": {"gte": 1e308}},
    {"file_type": ["pdf", "docx"]}, {"audited": True},
])
def test_values_the_engine_can_hold_pass(filters):
    check_filters(filters)
