"""A chunk's layout read line by line: numbered clauses, dot leaders, unpunctuated lists and headings."""

from __future__ import annotations

from ragwire.answer.layout import units
from ragwire.answer.passages import chunk_title, split_passages, split_sentences


def _texts(text: str) -> list[str]:
    return [p.text for p in split_passages(text)]


RULES = """\
ROWING CLUB HOUSE RULES

3. Boats
3.1 Members may take out a single scull after passing the capsize test
3.2 The hire of a club double costs 12 GBP for two hours
3.3 Boats go back on their racks within 30 minutes of landing
"""


def test_numbered_clauses_without_final_punctuation_are_passages_of_their_own() -> None:
    passages = split_passages(RULES)
    assert [p.text for p in passages] == [
        "Members may take out a single scull after passing the capsize test",
        "The hire of a club double costs 12 GBP for two hours",
        "Boats go back on their racks within 30 minutes of landing",
    ]


def test_a_numbered_section_name_is_the_context_of_its_clauses() -> None:
    assert {p.context for p in split_passages(RULES)} == {"Boats"}


def test_a_numbered_sub_section_name_of_four_words_heads_its_clauses() -> None:
    text = "3.3 Oars and boat hooks\n3.3.1 Oars are stored blade up in the rack.\n"
    assert [(p.context, p.text) for p in split_passages(text)] == [("Oars and boat hooks",
                                                                    "Oars are stored blade up in the rack.")]


def test_the_chunk_title_is_its_first_heading_line() -> None:
    assert chunk_title(RULES) == "ROWING CLUB HOUSE RULES"


def test_a_clause_number_is_no_part_of_what_the_clause_says() -> None:
    texts = _texts("2.4 A towel costs 3 EUR at the desk\n2.5 Lockers are free of charge for members\n")
    assert texts == ["A towel costs 3 EUR at the desk", "Lockers are free of charge for members"]


def test_a_wrapped_clause_goes_on_with_a_name_on_the_next_line() -> None:
    text = ("1.1 These rules apply to every crossing the company runs between the harbours of\n"
            "Rosslare, Cherbourg and Roscoff, and to the island shuttle in summer.\n"
            "1.2 Where a ticket says otherwise, the ticket applies.\n")
    assert _texts(text) == [
        "These rules apply to every crossing the company runs between the harbours of Rosslare, Cherbourg and "
        "Roscoff, and to the island shuttle in summer.",
        "Where a ticket says otherwise, the ticket applies.",
    ]


def test_a_decimal_amount_opening_a_wrapped_line_is_no_clause_number() -> None:
    text = ("The deposit for a season locker at the boathouse, payable in advance at the office, is\n"
            "12.50 EUR and is refunded when the key comes back.\n")
    assert _texts(text) == ["The deposit for a season locker at the boathouse, payable in advance at the office, is "
                            "12.50 EUR and is refunded when the key comes back."]


def test_a_dot_leader_joins_a_label_to_its_value_one_line_each() -> None:
    text = ("Car park, first hour ............ 2,00 EUR\n"
            "Car park, whole day .................ccceeeees 9,50 EUR\n"
            "Motorhome pitch with hook-up ...... 21,00 EUR per night\n")
    assert _texts(text) == [
        "Car park, first hour: 2,00 EUR",
        "Car park, whole day: 9,50 EUR",
        "Motorhome pitch with hook-up: 21,00 EUR per night",
    ]


def test_a_currency_written_before_the_amount_after_a_dot_leader_is_kept() -> None:
    # Round 32: the letters after the leader were read as OCR debris glued to the dots, spaced off or not.
    text = ("Kayak, single ....................... kr 120\n"
            "Kayak, double ....................... NOK 180\n")
    assert _texts(text) == ["Kayak, single: kr 120", "Kayak, double: NOK 180"]


def test_an_ellipsis_is_no_dot_leader() -> None:
    assert _texts("We waited... 20 minutes passed before the ferry came back to the quay.\n") == [
        "We waited... 20 minutes passed before the ferry came back to the quay."]


def test_unpunctuated_list_lines_stay_apart_however_long_they_are() -> None:
    text = ("Keys are returned to the office by the last member to leave the boathouse\n"
            "Trailers must be chained to the rail when they are left overnight on site\n"
            "Outboard engines are flushed with fresh water after every outing at sea\n")
    assert len(_texts(text)) == 3


def test_a_wrapped_line_after_a_function_word_still_joins() -> None:
    text = ("Keys are returned to the office by the last member to leave the boathouse before the\n"
            "Harbour Master locks the gate for the night\n"
            "Trailers must be chained to the rail overnight.\n")
    assert _texts(text)[0].endswith("before the Harbour Master locks the gate for the night")


def test_a_bare_line_saying_a_fact_is_quoted_not_taken_for_a_heading() -> None:
    text = ("Lost oars are kept in the shed for 60 days\n"
            "Opening hours: Monday to Friday 08:00 to 18:00\n")
    assert _texts(text)[0] == "Lost oars are kept in the shed for 60 days"


def test_a_short_bare_line_over_a_paragraph_still_heads_it() -> None:
    text = "Safety at sea\nEvery crew carries a whistle and a charged phone in a dry bag.\n"
    found = units(text)
    assert [u.kind for u in found] == ["title", "text"]
    assert split_passages(text)[0].context == "Safety at sea"


def test_a_numbered_clause_with_a_dot_leader_reads_as_label_and_value() -> None:
    assert _texts("4.2 Electricity hook-up ........ 3 EUR per day\n") == ["Electricity hook-up: 3 EUR per day"]


def test_lines_of_a_price_list_stay_apart_after_an_abbreviated_currency() -> None:
    text = "Letters up to 100 g: Rs. 60\nLetters 100 g to 250 g: Rs. 95\nTracking: 4% of the stated worth\n"
    assert _texts(text) == ["Letters up to 100 g: Rs. 60", "Letters 100 g to 250 g: Rs. 95",
                            "Tracking: 4% of the stated worth"]


def test_a_capitalised_abbreviation_before_a_number_ends_no_sentence() -> None:
    assert split_sentences("See Fig. 3 for the wiring of the pump. It runs on 12 V.") == [
        "See Fig. 3 for the wiring of the pump.", "It runs on 12 V."]


def test_an_abbreviation_in_brackets_ends_no_sentence() -> None:
    assert split_sentences("Lost token: a charge of sixty rupees (Rs. 60), with proof of identity.") == [
        "Lost token: a charge of sixty rupees (Rs. 60), with proof of identity."]


def test_a_short_sentence_that_says_something_heads_no_paragraph() -> None:
    # Round 22: a short rule with a verb read as a run-in heading over the rules after it.
    text = "Every case must carry a tag. Maximum 40 kg per case.\nLongest stay: 21 days.\n"
    assert [u.kind for u in units(text)] == ["text", "text"]
    assert {p.context for p in split_passages(text)} == {""}
    # A heading that asks what its paragraph says still heads it, auxiliary and all.
    asked = ("What is not covered. Damage caused by payloads above 120 kg or by collisions with forklifts.\n"
             "How to claim. Write to the service desk with the serial number and a photo of the damage.\n")
    assert [(p.text[:5], p.context) for p in split_passages(asked)] == [("Damag", "What is not covered"),
                                                                         ("Write", "How to claim")]


def test_a_run_in_heading_takes_no_room_from_the_wrapped_line_it_opens() -> None:
    # The unit keeps the first line less its heading; the line as written filled the width, so it wrapped.
    text = ("Spare keys on loan. The harbour office lends a spare locker key to members who show their card\n"
            "at the desk, for one hour at a time and during office hours only, and keeps a list of the loans.\n"
            "Lost keys. A lost locker key is replaced by the office for the fee the members' meeting sets.\n")
    assert _texts(text) == [
        "The harbour office lends a spare locker key to members who show their card at the desk, for one hour at a "
        "time and during office hours only, and keeps a list of the loans.",
        "A lost locker key is replaced by the office for the fee the members' meeting sets.",
    ]


BOATYARD_SCAN = """\
Boatyard services

Service                      Price (CHF)
Hull cleaning, per metre -_ 7 45.00
Winter storage, per month : : 120
‘Engine check (outboard) a 95
Mast removal. 380
Antifouling paint for the hull
"""


def test_a_column_header_naming_a_currency_prices_the_bare_numbers_of_the_rows_under_it() -> None:
    # A scan or a PDF's text gives a table without rules: the header names the unit once, the rows end in a bare
    # number, and the dots of a leader come out as stray marks between them.
    assert _texts(BOATYARD_SCAN) == [
        "Hull cleaning, per metre · Price (CHF): 45.00",
        "Winter storage, per month · Price (CHF): 120",
        "‘Engine check (outboard) · Price (CHF): 95",
        "Mast removal · Price (CHF): 380",
        "Antifouling paint for the hull",
    ]
    assert [p.context for p in split_passages(BOATYARD_SCAN)][:1] == ["Service Price (CHF)"]


def test_a_bracketed_word_that_is_no_unit_makes_no_column_header() -> None:
    text = "Opening hours (summer)\nMonday to Friday 9 - 17\nSaturday 10 - 14\n"
    assert "Opening hours (summer)" not in " ".join(p.context for p in split_passages(text))
    assert all("·" not in t for t in _texts(text))


def test_a_value_alone_after_a_full_stop_stays_with_its_sentence() -> None:
    assert split_sentences("The berth for a season, including water. 1,450. Crane hire is extra.") == [
        "The berth for a season, including water. 1,450.", "Crane hire is extra."]
    assert split_sentences("Dinghy hire for a day, with oars. 45.") == ["Dinghy hire for a day, with oars. 45."]


GRID_TABLE = """\
Mooring fees per night
+------------------------------+-----------+
| Boat                         | EUR/night |
+------------------------------+-----------+
| Dinghy up to 4 m             |        12 |
| Yacht 8 to 12 m              |        35 |
+------------------------------+-----------+
"""


def test_a_table_drawn_in_text_reads_its_first_row_as_the_column_names() -> None:
    assert _texts(GRID_TABLE)[-2:] == ["Boat: Dinghy up to 4 m · EUR/night: 12", "Boat: Yacht 8 to 12 m · EUR/night: 35"]


def test_a_grid_that_rules_every_row_names_no_column() -> None:
    text = "+-------+-----+\n| Kayak | 20 |\n+-------+-----+\n| Canoe | 25 |\n+-------+-----+\n"
    assert _texts(text) == ["Kayak · 20", "Canoe · 25"]


def test_a_grid_that_rules_every_row_takes_the_row_above_a_double_border_as_its_header() -> None:
    text = "+------+------+\n| Boat | Fee |\n+======+======+\n| Kayak | 20 |\n+------+------+\n| Canoe | 25 |\n+------+------+\n"
    assert _texts(text) == ["Boat: Kayak · Fee: 20", "Boat: Canoe · Fee: 25"]


def test_a_label_with_a_value_in_words_is_a_fact_not_the_heading_of_the_line_below() -> None:
    text = "Opening hours\nTuesday to Friday: 9 to 17\nMondays and bank holidays: closed\nThe shop sells fishing tackle.\n"
    assert "Mondays and bank holidays: closed" in _texts(text)
    assert {p.context for p in split_passages(text)} == {"Opening hours"}
