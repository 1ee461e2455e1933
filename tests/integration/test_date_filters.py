"""Range filters on timestamp fields (created, modified): dates and times, as the web page's date pickers send them."""

from __future__ import annotations

import pytest

from ragwire import RAGWire
from ragwire.errors import ConfigError


@pytest.fixture
def rag(examples_config):
    with RAGWire(examples_config) as pipeline:
        yield pipeline


def created_by_file(rag) -> dict[str, str]:
    return {d.metadata["file_name"]: d.metadata["created"]
            for d in rag.retrieve("robot", top_k=50) if d.metadata.get("created")}


def test_a_date_range_keeps_the_documents_created_inside_it_and_only_those(rag):
    # guards issue 38 item 8: a range needed a numeric field, so created/modified could only be matched exactly
    created = created_by_file(rag)
    assert len(set(created.values())) >= 2, created  # the corpus has documents of different dates
    earliest = min(created.values())
    day = earliest[:10]
    kept = {d.metadata["file_name"] for d in rag.retrieve("robot", top_k=50, filters={"created": {"lte": day}})}
    # a day alone as the upper bound keeps that whole day
    assert kept == {name for name, when in created.items() if when[:10] <= day}
    later = {d.metadata["file_name"] for d in rag.retrieve("robot", top_k=50, filters={"created": {"gt": day}})}
    assert later == {name for name, when in created.items() if when[:10] > day}
    assert kept and later and not kept & later


def test_a_time_with_its_zone_is_compared_in_utc(rag):
    created = created_by_file(rag)
    name, when = sorted(created.items(), key=lambda item: item[1])[0]
    # the same moment written two hours east of UTC
    hour = int(when[11:13])
    if hour > 21:
        pytest.skip("the earliest timestamp is too late in its day to shift by two hours here")
    shifted = f"{when[:11]}{hour + 2:02d}{when[13:19]}+02:00"
    found = {d.metadata["file_name"] for d in rag.retrieve("robot", top_k=50,
                                                          filters={"created": {"gte": shifted, "lte": shifted}})}
    assert name in found


@pytest.mark.parametrize("bounds, message", [
    ({"gte": "last tuesday"}, "filters.created.gte: 'last tuesday' is not a number or a date"),
    ({"gte": "2024-02-30"}, "filters.created.gte: '2024-02-30' is not a number or a date"),
])
def test_a_bound_that_is_not_a_date_is_refused_in_one_line_naming_it(rag, bounds, message):
    with pytest.raises(ConfigError) as raised:
        rag.retrieve("robot", filters={"created": bounds})
    assert message in str(raised.value) and "\n" not in str(raised.value)
