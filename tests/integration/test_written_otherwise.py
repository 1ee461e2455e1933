"""Facts the documents say in other words than the question's, answered; one end of a scale for the other, refused
(issue 33, round 15).

Before round 15 each question here but the last was refused (a word only the file's name holds, a place written
with accents, a month inside a range, "extra charge" for "surcharge") or answered from the wrong row (a part of
the day against time slots); the last was answered with a minimum when it asks for a maximum.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "ashgrove-window-cleaning-terms.md": """# Ashgrove terms of service

1. Rounds are booked at least two working days ahead.
2. Customers settle each round by card or bank transfer. Our crews take no cash.
3. Work booked for a Sunday carries a surcharge of 40 %.
""",
    "kestrel-bakery-delivery.md": """# Kestrel bakery deliveries

We deliver bread and cakes anywhere in Zürich for CHF 12 per order.
Orders must reach us by 18:00 the day before. Extra candles for a birthday cake come free of charge.
""",
    "elmwood-garden-visitors.md": """# Elmwood garden visitor information

| Season | Opening hours |
|---|---|
| 1 May to 30 September | 09:00–20:00 |
| 1 October to 30 April | 10:00–16:00 |

Riders on the garden's pony trail must be aged 8 or over.
""",
    "northgate-tennis-courts.md": """# Northgate tennis court rates

| Time slot | Monday to Friday | Weekend |
|---|---|---|
| 07:30 to 12:00 | GBP 9 | GBP 12 |
| 12:00 to 17:00 | GBP 11 | GBP 14 |
| 17:00 to 22:00 | GBP 16 | GBP 18 |
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("written-otherwise"), DOCS)


def test_a_word_only_the_file_name_holds_is_no_absent_term(rag) -> None:
    answer = rag.query("Can I settle the window cleaning bill in cash?")
    assert not answer.refused, answer.text
    assert "take no cash" in answer.text
    assert cited_files(answer) == {"ashgrove-window-cleaning-terms.md"}


def test_a_place_written_with_accents_is_the_one_asked_about(rag) -> None:
    answer = rag.query("What does the bakery charge to deliver to Zurich?")
    assert not answer.refused, answer.text
    assert "CHF 12" in answer.text


def test_a_month_inside_a_range_is_answered_by_the_range(rag) -> None:
    answer = rag.query("What time does Elmwood garden close in January?")
    assert not answer.refused, answer.text
    assert "16:00" in answer.text


def test_an_extra_charge_is_answered_by_a_surcharge(rag) -> None:
    answer = rag.query("What extra charge is there for Sunday work at Ashgrove?")
    assert not answer.refused, answer.text
    assert "40 %" in answer.text


def test_a_part_of_the_day_picks_its_time_slot(rag) -> None:
    answer = rag.query("How much is a tennis court on a weekday evening at Northgate?")
    assert not answer.refused, answer.text
    assert "GBP 16" in answer.text


def test_a_minimum_age_is_no_upper_age_limit(rag) -> None:
    answer = rag.query("Do riders on the pony trail have an upper age?")
    assert answer.refused, answer.text
    assert "'upper'" in answer.text
