"""Round 27 (issue 33): "is there a …" and "who is the …" need the thing or role named; a ticket's price is its row's.

These fail on round 26's code: the thing or role asked after was weighed with the rest of the
question, so a passage naming the place or the organisation alone answered it; "an adult ticket"
required the word "ticket" in a price list whose rows say "Adult".
"""

from __future__ import annotations

from ragwire.answer.answerable import (
    existence_unmentioned,
    kind_unmentioned,
    predicate_unmentioned,
    role_unmentioned,
)
from ragwire.answer.counts import other_measure
from ragwire.answer.coverage import covers
from ragwire.answer.expectations import expectation
from ragwire.answer.extractive import _says
from ragwire.answer.text import stems

from .test_extractive import WordEmbedding


def test_is_there_a_thing_needs_the_thing_in_the_quote():
    question = "Is there any sauna in the Birchwood lodge?"
    address = ["Birchwood lodge, 12 Fir Lane, opens every day at 8."]
    assert existence_unmentioned(question, address, WordEmbedding()) == ["sauna"]
    assert existence_unmentioned(question, ["The Birchwood lodge has a wood-fired sauna."], WordEmbedding()) == []


def test_a_sum_or_a_bound_asked_after_is_stated_by_its_value():
    assert existence_unmentioned("Is there any extra charge for towels?", ["Towels: 3 EUR each."], WordEmbedding()) == []
    assert existence_unmentioned("Is there any weight limit on the zipline?", ["Riders over 110 kg cannot ride."],
                                 WordEmbedding()) == []


def test_a_question_of_another_form_is_not_read_as_asking_after_a_thing():
    assert existence_unmentioned("Does the lodge rent out sledges?", ["The lodge opens at 8."], WordEmbedding()) == []


def test_a_ticket_or_pass_is_priced_by_the_row_its_modifier_names():
    adult = expectation("What does an adult ticket to the steam fair cost?")
    assert adult is not None and adult.heads == ("adult",)
    assert covers(adult, "Adult: £9.00", "Admission", "steam fair notice")
    day = expectation("What does a day pass cost?")
    assert day is not None and day.heads == ("day",)
    assert not covers(day, "Week: 30 EUR")
    assert expectation("What does the ticket cost?").heads == ("ticket",)  # nothing else names the row


def test_who_holds_a_role_needs_the_role_in_the_quote():
    question = "Who is the bowls club's secretary at Hillside?"
    assert role_unmentioned(question, ["Hillside bowls club, 4 Green Lane, founded 1921."], WordEmbedding()) == [
        "secretary"]
    assert role_unmentioned(question, ["Secretary: Ruth Ames, 07700 900123."], WordEmbedding()) == []


def test_who_does_an_act_is_not_checked_for_the_act():
    # Documents name an act in other words ("become the property of" for "keeps"): only a role noun is required.
    assert role_unmentioned("Who keeps the spare keys?", ["Spare keys stay with the warden."], WordEmbedding()) == []
    assert role_unmentioned("Who is in charge at the kitchen rota?", ["The rota hangs by the door."],
                            WordEmbedding()) == []


def test_a_row_named_by_its_size_is_not_answered_by_another_size():
    assert other_measure("Price of a 40 × 40 cm canvas?", ["Canvas, 30 × 30 cm: 45 EUR"]) == ("40 cm", "30 cm")
    assert other_measure("Cost of one wash in the 18 kg machine?", ["Machine 3 · capacity: 8 kg · 5 EUR"]) == ("18 kg",
                                                                                                  "8 kg")


def test_a_size_the_quote_states_or_holds_in_a_range_is_answered():
    assert other_measure("Price of a 40 × 40 cm canvas?", ["Canvas, 40 × 40 cm: 60 EUR"]) is None
    assert other_measure("How much to post a 3 kg box?", ["Boxes of 2 kg to 5 kg: 9 EUR"]) is None
    assert other_measure("How much to post a 3 kg box?", ["Boxes up to 5 kg: 9 EUR"]) is None
    # A length of time in a question is a condition, not a row: "within 30 days" over a 14-day rule is for the reader.
    assert other_measure("Can I return shoes within 30 days?", ["Returns are accepted within 14 days."]) is None


def test_a_compound_adjective_is_said_by_its_value_not_by_its_dimension():
    # Every row of a table under "Plot size" says "size": only the medium row says "medium-sized".
    assert not _says("medium-sized", stems("Large · 401 – 550 m² · € 340 | Plot size"))
    assert _says("medium-sized", stems("Medium · 251 – 400 m² · € 260 | Plot size"))
    assert _says("late-cancellation", stems("Cancelled less than a day ahead: full price"))


def test_what_a_yes_no_question_says_of_its_subject_must_be_named_by_the_quote():
    question = "Does Harbour Bakery make gluten-free bread?"
    unrelated = ["Harbour Bakery, 2 Quay Street, open from 7 every morning."]
    assert predicate_unmentioned(question, unrelated, WordEmbedding()) == ["gluten-free", "bread"]
    assert predicate_unmentioned(question, ["All our gluten-free bread is baked on Tuesdays."], WordEmbedding()) == []


def test_a_yes_no_question_is_answered_when_most_of_what_it_says_is_named():
    # The subject's name and the words a value states ("extra", "limit") are not weighed.
    assert predicate_unmentioned("Is a second bag on the Kestrel ferry charged extra?",
                                 ["Each second bag costs 8 EUR on every crossing."], WordEmbedding()) == []


def test_which_kind_of_thing_needs_the_kind_or_a_kind_of_it_in_the_quote():
    question = "Which varnish does the boatyard use on the masts?"
    assert kind_unmentioned(question, ["Masts are sanded every spring before the season."], WordEmbedding()) == [
        "varnish"]
    assert kind_unmentioned(question, ["Masts get two coats of marine varnish."], WordEmbedding()) == []
    # A general noun or a sum its value states names no kind: "what discount" is answered by "15 % off".
    assert kind_unmentioned("What discount do groups get?", ["Groups of ten: 15 % off."], WordEmbedding()) == []


def test_which_day_is_named_by_a_weekday_though_the_lexicon_files_weekdays_elsewhere():
    question = "On which weekday does the harbour office issue mooring permits?"
    assert kind_unmentioned(question, ["Mooring permits are issued on Thursdays only."], WordEmbedding()) == []
    assert kind_unmentioned(question, ["Mooring permits are issued at the harbour office."], WordEmbedding()) == ["weekday"]
