"""Contact details (a letterhead, a footer) answer only questions about reaching someone (issue 33, round 11)."""

from __future__ import annotations

import pytest

from ragwire.answer.contact import asks_contact, contact_only
from ragwire.answer.extractive import extractive_answer

from ..conftest import WordEmbedding
from .test_extractive import _source


@pytest.mark.parametrize("text", [
    "Kestrel Pottery Supplies, 48 Ferry Road, Dunmore",
    "Bäckerei Lindner, Bahnhofstraße 12, 6020 Innsbruck, Austria.",
    "Tindvik Sykkel, Fjordgata 7, 9008 Tromsø",
    "Questions? Call 0161 496 0753 or write to orders@kestrelpottery.example",
    "FLATWATER PADDLE CLUB — Clubhouse: +44 20 7946 0321",
    "Casa Alba, Rua do Sol 22, 1100-148 Lisboa",
    "Mill Yard Studios, 3 Canal Street, Leeds LS2 7EH",
])
def test_a_letterhead_or_footer_is_contact_details(text):
    assert contact_only(text)


@pytest.mark.parametrize("text", [
    "A loaf of rye costs EUR 4.20 and is baked every morning except Sunday.",
    "Lessons are booked at the office on 14 Quay Street, open Monday to Friday from 9 to 17, or online any time.",
    "Prices 2027 Adults EUR 12, children EUR 6",
    "Tour: Lake loop · Season: 1 May – 30 September · Duration: 2 hours",
    "The workshop at 12 Mill Lane repairs frames, wheels and gears, and fits new brakes within two days.",
])
def test_a_passage_saying_more_than_where_to_reach_someone_is_not(text):
    assert not contact_only(text)


@pytest.mark.parametrize(("question", "asks"), [
    ("Where is the pottery shop?", True),
    ("What number do I call to book?", True),
    ("What is the bakery's e-mail address?", True),
    ("What are the shop's opening hours?", True),  # a footer gives them beside the address
    ("Does the bakery sell gluten-free bread?", False),
    ("How much is a loaf of rye?", False),
])
def test_a_question_asks_for_contact_details_by_its_words(question, asks):
    assert asks_contact(question) is asks


def test_the_letterhead_is_not_quoted_for_what_the_shop_sells_but_is_for_where_it_is():
    # The letterhead shares four words with the question and is the closest passage; it says nothing stocked.
    sources = [_source(1, "Kestrel Pottery Supplies, 48 Ferry Road, Dunmore"),
               _source(2, "Our shop stocks stoneware clay in 10 kg bags.")]
    text, refused = extractive_answer("What does Kestrel Pottery Supplies in Dunmore stock?", sources,
                                      WordEmbedding(), threshold=0.0)
    assert not refused and "stoneware" in text and "Ferry Road" not in text
    text, refused = extractive_answer("Where is Kestrel Pottery Supplies?", sources, WordEmbedding(), threshold=0.0)
    assert not refused and "48 Ferry Road" in text
