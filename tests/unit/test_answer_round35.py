"""Round 35 (issue 33): journeys and uses of a service, lengths of time, data rates, counts asked as "the number
of", and a table's unit in its header.

Each test fails on round 34's code (e930de4).
"""

from __future__ import annotations

from ragwire.answer.answerable import missing_terms
from ragwire.answer.contact import contact_only
from ragwire.answer.coverage import covers, instance
from ragwire.answer.ends import other_end_only
from ragwire.answer.expectations import expectation
from ragwire.answer.extractive import score_passages
from ragwire.answer.passages import chunk_title, split_passages

from .test_extractive import WordEmbedding, _source


def _asked(question: str):
    asked = expectation(question)
    assert asked is not None, question
    return asked


def test_a_journey_is_timed_under_its_vehicle_or_its_route_as_well_as_its_own_name():
    asked = _asked("How long does a ride on the Kestrel cable car take?")
    assert covers(asked, "Kestrel cable car · 4-seat cabins · 2.2 km · 9 minutes")
    trip = _asked("How long is a crossing from Harwick to Elm Island?")
    assert covers(trip, "The boat from Harwick to Elm Island takes 50 minutes.")
    assert covers(trip, "The crossing takes 50 minutes in calm weather.")
    assert not covers(trip, "The café on Elm Island opens for 50 minutes at noon.")


def test_a_use_of_a_machine_is_priced_under_the_machine():
    asked = _asked("What do you charge for a load in the big dryer?")
    assert asked.heads == ("dryer",)
    assert covers(asked, "Big dryer (14 kg): 6.50 EUR")


def test_a_count_of_one_before_a_unit_is_named_by_the_unit_alone():
    asked = _asked("What does a one-week pass cost at the pool?")
    assert covers(asked, "Week pass: 32 EUR")


def test_the_verb_closing_a_question_after_an_of_phrase_is_no_head():
    asked = _asked("How long does the night walk of the old town last?")
    assert "last" not in asked.heads
    assert covers(asked, "Night walk through the old town: 90 minutes")


def test_the_length_of_a_booking_is_a_length_of_time():
    asked = _asked("What length can one sauna booking have at most?")
    assert covers(asked, "Sauna: 45 minutes at most per booking")


def test_what_distance_is_asked_as_how_far():
    asked = _asked("What distance from the depot will you deliver firewood?")
    assert covers(asked, "We deliver firewood within 25 km of the depot.")


def test_a_data_rate_is_a_speed():
    asked = _asked("How fast is the wifi in the guest rooms?")
    for text in ("Guest rooms: wifi at 300 Mbps", "Wifi in the guest rooms: 1 Gbit/s"):
        assert covers(asked, text), text


def test_the_number_of_things_is_asked_as_how_many_and_its_end_is_of_the_things():
    asked = _asked("What is the largest number of pupils in a swimming group?")
    assert asked.kind == "number"
    assert covers(asked, "A swimming group has up to 8 pupils.")
    assert other_end_only("What is the largest number of pupils in a swimming group?",
                          ["The smallest swimming group we run is 4 pupils."]) == ("largest", "low")


def test_a_number_in_a_unit_is_carried_by_a_table_giving_the_unit_in_its_header():
    table = _source(1, "| Model | Weight (kg) | Price |\n| --- | --- | --- |\n| Trail | 14 | 900 EUR |\n"
                       "| Tour | 17 | 1100 EUR |")
    assert missing_terms("What does the 17 kg bike cost?", [table], WordEmbedding()) == []
    assert missing_terms("What does the 12 kg bike cost?", [table], WordEmbedding()) == ["12"]


def test_title_lines_opening_a_chunk_together_are_its_title():
    text = ("HILLTOP KITE SOCIETY\nSummer Festival 2027 - Notes for Spectators\n\n"
            "Ridge Farm Community Hall, Mill Lane, Hilltop, Wexley HX3 9QT\n\nDays and hours\n\nSaturday 16 October: 10:00 to 17:00")
    assert chunk_title(text) == "HILLTOP KITE SOCIETY Summer Festival 2027 - Notes for Spectators"


def test_lines_indented_under_a_numbered_item_take_its_title_as_context():
    text = ("PROGRAMME\n\n1. Harvest recital\n   Friday 3 October, 7 pm, Mill Hall\n   Seats: adults 20 EUR, pupils 8 EUR\n\n"
            "2. Winter recital\n   Friday 5 December, 7 pm, Mill Hall\n   Seats: adults 25 EUR, pupils 10 EUR\n\n"
            "Doors open half an hour before every recital.")
    contexts = {p.text: p.context for p in split_passages(text)}
    assert contexts["Seats: adults 20 EUR, pupils 8 EUR"] == "PROGRAMME Harvest recital"
    assert contexts["Seats: adults 25 EUR, pupils 10 EUR"] == "PROGRAMME Winter recital"
    assert contexts["Doors open half an hour before every recital."] == "PROGRAMME"


def test_an_empty_header_row_gives_way_to_a_first_row_of_words():
    text = "|  |  |  |\n| --- | --- | --- |\n| Pass | Adult | Child |\n| 2 days | 90 EUR | 45 EUR |\n"
    assert [p.text for p in split_passages(text)] == ["Pass: 2 days · Adult: 90 EUR · Child: 45 EUR"]
    data = "|  |  |\n| --- | --- |\n| Locker, 1 day | 4 EUR |\n| Locker, 7 days | 20 EUR |\n"
    assert [p.text for p in split_passages(data)] == ["Locker, 1 day · 4 EUR", "Locker, 7 days · 20 EUR"]


def test_a_unit_before_for_names_a_row_and_only_before_of_a_measure():
    assert "day" in _asked("What does a senior day ticket for the ski lifts cost?").heads
    assert _asked("How much is one litre of soup at the canteen?").heads == ("soup",)


def test_a_number_given_on_the_other_side_of_a_threshold_is_no_literal_of_the_question():
    rows = _source(1, "Laundry prices\n\n- Bag wash, each kg over 8 kg: 1.50 EUR\n- Bag wash, up to 8 kg: 11 EUR\n")
    shown = {c.passage.text: c.shows for c in score_passages("Price of a bag wash up to 8 kg?", [rows],
                                                              WordEmbedding())}
    assert shown["Bag wash, up to 8 kg: 11 EUR"] > shown["Bag wash, each kg over 8 kg: 1.50 EUR"]


def test_a_dollar_sign_with_its_country_letters_is_money():
    assert instance("amount of money", "Membership (paid once): $U 900")


def test_a_unit_asked_in_words_is_named_by_its_symbol():
    asked = _asked("How much is every extra kilo over the limit?")
    assert covers(asked, "Extra baggage, each kg over the limit: 9 EUR")


def test_a_label_naming_what_its_bare_number_counts_gives_the_count():
    asked = _asked("How many people can the barn hold?")
    for text in ("Venue: Old barn · Seated capacity: 60 · Standing capacity: 90", "Guests allowed in the barn at once: 60"):
        assert covers(asked, text), text
    assert not covers(asked, "The barn opens at 18:30 on Fridays.")
    bikes = _asked("How many bikes does the shed take?")
    assert covers(bikes, "Bikes: 14 in the shed, 6 more in the yard")
    assert not covers(bikes, "bikes: 2 adults and 3 children ride free on Sundays")


def test_a_count_named_by_its_noun_as_a_verb_counts_it():
    assert covers(_asked("How many seats does the upper circle have?"), "The upper circle seats 210, with a bar at the back")


def test_a_sentence_giving_a_date_and_its_hour_at_an_address_is_no_letterhead():
    assert not contact_only("Join us for the autumn recital on Friday 3 October 2025 at 19:00 in Mill Hall, "
                            "4 Weaver Lane, Hilltop HX3 9QT.")
    assert contact_only("Mill Hall, 4 Weaver Lane, Hilltop HX3 9QT, tel. +44 1632 960 455")


def test_a_bound_of_another_measure_bounds_nothing_asked():
    quoted = ["The smallest party we cater for is 20 guests.",
              "Waiting staff: one per 30 guests, at most 5 hours, 40 EUR an hour."]
    assert other_end_only("What is the largest number of guests the caterer serves?", quoted) == ("largest", "low")


def test_which_day_of_the_week_is_answered_by_a_weekday():
    asked = _asked("On which day of the week is entry to the gallery free?")
    assert asked.kind == "day of the week"
    assert covers(asked, "Free entry: Wednesdays, all day")
    assert not covers(asked, "A visit to the gallery takes about 90 minutes")
