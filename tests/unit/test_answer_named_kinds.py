"""Round 24 (issue 33): the files a question names, the kinds and age bands a list names, parts that name nothing,
and lines that only name a place or a title."""

from __future__ import annotations

import pytest

from ragwire.answer import NumberedSource
from ragwire.answer.ages import asked_age, holds, other_age
from ragwire.answer.contact import contact_only
from ragwire.answer.elsewhere import files_naming
from ragwire.answer.ends import other_side
from ragwire.answer.instances import INSTANCES
from ragwire.answer.passages import split_passages
from ragwire.answer.reference import names_nothing
from ragwire.answer.siblings import other_modifier, quoted_sibling
from ragwire.retrieval import Hit

from .test_extractive import WordEmbedding


class _Index:
    """A store index: which words each file holds (by its path), and how many chunks there are."""

    def __init__(self, held: dict[str, set[str]], size: int = 40) -> None:
        self.held = held
        self.size = size

    def documents_with(self, term: str, source: str | None = None) -> int:
        files = [source] if source is not None else list(self.held)
        return sum(term in self.held.get(f, set()) for f in files)

    def refresh(self) -> None:
        pass


def _sources(*paths: str) -> list[NumberedSource]:
    return [NumberedSource(i, "text", Hit("text", {"source": path})) for i, path in enumerate(paths, 1)]


def test_a_name_some_retrieved_files_mention_keeps_to_those_files():
    index = _Index({"docs/fernvale_club.md": {"fernvale", "fee"}, "docs/town_notes.md": {"fee"}})
    found = files_naming("What is the entry fee at Fernvale?", _sources("docs/town_notes.md", "docs/fernvale_club.md"),
                         index)
    assert found == {"docs/fernvale_club.md"}


def test_a_word_of_a_file_name_is_a_name_too_but_not_a_word_of_its_family():
    index = _Index({"docs/cobbler_prices.md": {"card"}, "docs/pottery_club.md": {"card"},
                    "docs/electricity_bill.pdf": {"kwh"}, "docs/parking_tariffs.csv": {"charging"}})
    assert files_naming("Is paying by card dearer at the cobbler?",
                        _sources("docs/pottery_club.md", "docs/cobbler_prices.md"), index) == {"docs/cobbler_prices.md"}
    # "electric" is not "electricity": the parking garage's charging row stays a candidate.
    assert files_naming("What does charging an electric car cost?",
                        _sources("docs/electricity_bill.pdf", "docs/parking_tariffs.csv"), index) is None


def test_no_file_is_set_aside_when_all_or_none_mention_the_name_or_it_is_the_collections_subject():
    both = _Index({"a.md": {"fernvale"}, "b.md": {"fernvale"}})
    assert files_naming("What is the fee at Fernvale?", _sources("a.md", "b.md"), both) is None
    neither = _Index({"a.md": {"fee"}, "b.md": {"fee"}})
    assert files_naming("What is the fee at Fernvale?", _sources("a.md", "b.md"), neither) is None
    # A maker's name in a third of its manuals' chunks is the subject of them all.
    subject = _Index({"a.md": {"acme"}, "b.md": set()}, size=8)
    subject.documents_with = lambda term, source=None: {"a.md": 3, "b.md": 0, None: 3}[source] if term == "acme" else 0
    assert files_naming("Where is Acme's service team based?", _sources("a.md", "b.md"), subject) is None
    assert files_naming("What is the fee at Fernvale?", _sources("a.md", "b.md"), None) is None


@pytest.mark.parametrize(("question", "quoted", "kinds"), [
    ("What does a mango smoothie cost?", ["Banana smoothie: £4.20", "Kiwi smoothie: £4.50"],
     ("mango smoothie", "banana smoothie")),
    ("How much is the flower stall's rent?", ["Fish stall, corner: €640 a month"],
     ("flower stall", "fish stall")),
])
def test_a_kind_named_by_a_noun_the_files_never_use_is_another_kind_than_the_quoted(question, quoted, kinds):
    assert other_modifier(question, quoted, lambda word: False) == kinds


@pytest.mark.parametrize(("question", "quoted", "mentioned"), [
    # the quotes name the asked kind
    ("What does a kiwi smoothie cost?", ["Banana smoothie: £4.20", "Kiwi smoothie: £4.50"], False),
    # the quoted file uses the noun somewhere: the list may name the kind otherwise
    ("What does a mango smoothie cost?", ["Banana smoothie: £4.20"], True),
    # a value on a scale is the range checks' (a weekend row), and a payer against a payer the payers' scale
    ("What does the weekend ticket cost?", ["Weekday ticket: €9"], False),
    ("What does a student ticket cost?", ["Adult ticket: €9"], False),
    # an adjective is left alone: "usual" or "full" picks no row
    ("What is the usual price?", ["Weekday price: €9"], False),
])
def test_no_other_kind_when_the_quotes_or_files_name_it_or_the_word_is_no_kind(question, quoted, mentioned):
    assert other_modifier(question, quoted, lambda word: mentioned) is None


@pytest.mark.parametrize(("part", "nothing"), [
    ("What does it cost?", True),
    ("For how long?", True),
    ("What's the price?", True),
    ("How much is it?", True),
    ("What are its fees?", True),
    ("How long is the boat trip?", False),
    ("What is SKU-77310-B?", False),
    ("When does the café open?", False),
])
def test_a_part_names_nothing_when_it_has_no_word_beyond_the_type_it_asks_for(part, nothing):
    assert names_nothing(part) is nothing


@pytest.mark.parametrize(("text", "money"), [
    ("Entry is R 380 per team", True),
    ("Annual membership: R850", True),
    ("R1 200 for the season", True),
    ("grade R pupils", False),
    ("Buses on route R14 are replaced", False),  # one letter and two digits: a route, a size or a grade
    ("The R2 road is closed", False),
    ("r 45", False),
])
def test_the_rands_letter_before_an_amount_is_money(text, money):
    assert bool(INSTANCES["amount of money"].search(text)) is money


@pytest.mark.parametrize(("question", "age"), [
    ("What is a pony ride for a 7-year-old?", 7),
    ("Scarves for a seven-year-old: what are they?", 7),
    ("What does a child aged 9 pay?", 9),
    ("What do pupils aged 5 to 11 pay?", None),  # a band: its own words find its row
    ("What does a child pay?", None),
])
def test_the_age_a_question_asks_a_price_for(question, age):
    assert asked_age(question) == age


@pytest.mark.parametrize(("text", "age", "held"), [
    ("Shirt · Size: age 12–14 · Price: €24", 9, False),
    ("Shirt · Size: age 8–11 · Price: €21", 9, True),
    ("Pony ride, riders 12 and over: 6.50", 10, False),
    ("Under-5s go free", 4, True),
    ("Junior member (14 to 17 years): €95", 15, True),
    ("Workshop: Clay bowls · Age: 14+", 12, False),
    ("Seniors over 65: €5", 70, True),
    ("Adults: €10", 30, True),  # a payer's usual band where no ages are given
    ("Extra adult: €10", 10, False),
    ("Free entry for all", 30, None),  # no band given
    ("Open from 10 to 16 o'clock", 12, None),  # hours, not ages
])
def test_an_age_band_holds_the_asked_age_or_not(text, age, held):
    assert holds(age, text) is held


def test_quotes_giving_only_other_age_bands_are_about_another_age():
    question = "What is a pony ride for a 7-year-old?"
    assert other_age(question, ["Pony ride, riders 12 and over: 6.50"]) == ("a 7-year-old", "ages 12 and over")
    assert other_age(question, ["Riders under 12: 4.50", "Riders 12 and over: 6.50"]) is None
    assert other_age(question, ["Pony ride: 6.50"]) is None
    assert other_age(question, ["Pony ride, extra adult: 6.50"]) == ("a 7-year-old", "adults")


@pytest.mark.parametrize(("text", "contact"), [
    ("Boat shed on Harbour Drive, Kelvale, Fiji", True),  # a street and its town: an address without a number
    ("Mirren Road, Dunholt", True),
    ("The café on Church Road, Bristol, serves lunch from noon and dinner until late every day.", False),
    ("Turn left at the main road, then follow the signs to the harbour.", False),
])
def test_a_named_street_before_its_town_is_an_address(text, contact):
    assert contact_only(text) is contact


def test_a_title_in_capitals_keeps_its_number_sign_and_stays_a_title():
    assert [p.text for p in split_passages("MARSH LANE TESTING STATION No. 4\n\nCars are inspected every year.")] \
        == ["Cars are inspected every year."]


@pytest.mark.parametrize(("question", "quoted", "sides"), [
    ("What is the toll for a van over 3.5 tonnes?", ["Toll — Van up to 3.5 tonnes: €12"], ("over 3.5", "up to 3.5")),
    ("What does a stay of more than 7 nights cost?", ["Stays of 7 nights or less: €80 a night"], ("over 7", "up to 7")),
    ("What is the fee for groups of up to 8?", ["Groups of over 8 people: €50"], ("up to 8", "over 8")),
])
def test_a_number_quoted_only_on_the_other_side_of_its_threshold_is_another_row(question, quoted, sides):
    assert other_side(question, quoted) == sides


@pytest.mark.parametrize(("question", "quoted"), [
    ("What is the toll for a van over 3.5 tonnes?", ["Van up to 3.5 tonnes: €12", "Van over 3.5 tonnes: €19"]),
    ("What is the toll for a van over 3.5 tonnes?", ["Vans: €12 a day"]),  # no threshold quoted
    ("What does a stay of 5 nights or more cost?", ["Stays of 5 nights or more: €70 a night"]),
])
def test_no_other_side_when_the_asked_side_is_quoted_or_no_threshold_is(question, quoted):
    assert other_side(question, quoted) is None


def test_a_column_and_its_value_are_no_kind_of_a_thing():
    # "Service: Dog bath" names a dog bath; "service" is the column, not a kind of dog.
    quoted = ["Service: Dog bath · Fee: €30", "Service: Dog trim · Fee: €45"]
    assert other_modifier("How much is a bath for a guide dog?", quoted, lambda word: False) is None


def test_a_lower_case_word_the_lexicon_does_not_know_may_name_a_kind():
    assert other_modifier("What does a bothy hut cost per night?", ["Alpine hut: €20 a night"],
                          lambda word: False) == ("bothy hut", "alpine hut")


@pytest.mark.parametrize(("text", "contact"), [
    ("Kestrel Derneği · Lale Cad. 14, Foça, İzmir", True),  # a Turkish street, abbreviated with its dot
    ("Kovács Bt., Rózsa utca 9, Pécs", True),  # a Hungarian one
    ("Wrona Atelier, ul. Polna 3, Lublin", True),  # a Polish one, its word before the name
    ("The CAD 2024 course covers technical drawing in six evenings.", False),  # no dot: a word, not a street
])
def test_streets_of_more_languages_are_addresses(text, contact):
    assert contact_only(text) is contact


def test_an_action_quoted_beside_the_asked_one_is_no_sibling():
    # "How much does a firm pay to reserve the hall?" over "hall hire for firms": paying and hiring go together.
    assert quoted_sibling("How much does a firm pay to reserve the small hall?", ["Small hall, hire for firms: €90"],
                          WordEmbedding()) is None
