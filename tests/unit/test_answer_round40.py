"""Round 40: tables typed in plain text or under an empty header, payers' age bands, counts in headings, the passive
"who was elected …", size codes, and focus heads that were verbs."""

from __future__ import annotations

from ragwire.answer.ages import bands, holds
from ragwire.answer.asked import asked, literals_held
from ragwire.answer.coverage import covers, measured
from ragwire.answer.evidence import salient_terms
from ragwire.answer.expectations import expectation
from ragwire.answer.pairs import asked_pair, pair_stated
from ragwire.answer.passages import split_passages, split_sentences
from ragwire.answer.people import _duty

_TEXT_TABLE = """3. LOCKER SIZES AND PRICES

Size   Depth    Width     Price per week
----   ------   -------   --------------
XS     40 cm    30 cm     12,00 EUR
M      60 cm    50 cm     21,50 EUR
XL     90 cm    80 cm     38,00 EUR
"""


def test_a_table_typed_in_plain_text_reads_as_rows_of_its_columns() -> None:
    rows = [p.text for p in split_passages(_TEXT_TABLE)]
    assert "Size: M · Depth: 60 cm · Width: 50 cm · Price per week: 21,50 EUR" in rows
    assert len(rows) == 3


def test_a_single_rule_under_a_line_is_an_underline_not_a_table() -> None:
    text = "Opening hours\n-------------\nThe kiosk opens at 9:00 every day of the week.\n"
    assert [p.text for p in split_passages(text)] == ["The kiosk opens at 9:00 every day of the week."]


def test_an_empty_header_row_yields_to_a_first_row_of_labels_with_an_age_band() -> None:
    text = ("| | | |\n| --- | --- | --- |\n| Walk | Adults | Kids 3–11 |\n"
            "| Harbour loop | £14 | £7 |\n| Cliff path | £18 | not for kids |\n")
    rows = [p.text for p in split_passages(text)]
    assert "Walk: Harbour loop · Adults: £14 · Kids 3–11: £7" in rows


def test_a_first_row_of_values_under_an_empty_header_stays_a_row() -> None:
    text = "| | |\n| --- | --- |\n| Harbour loop | £14 |\n| Cliff path | £18 |\n"
    assert "Harbour loop · £14" in [p.text for p in split_passages(text)]


def test_a_payer_from_an_age_on_holds_every_older_age() -> None:
    line = "Pupils aged 12 to 17 pay 90 EUR and adults from 18 pay 240 EUR."
    assert (18, float("inf")) in bands(line)
    assert holds(40, line)
    assert not holds(40, "Pupils aged 12 to 17 pay 90 EUR.")


def test_an_idiom_noun_is_no_key_term() -> None:
    assert "touch" not in salient_terms("Whom should we get in touch with about a lost key?")
    assert "charge" not in salient_terms("Which teacher stands in charge of the sailing school?")
    assert "touch" in salient_terms("Does the kiosk have a touch screen?")


def test_a_heading_counting_the_asked_noun_counts_for_the_rows_under_it() -> None:
    expected = expectation("How many pupils can join one group lesson?")
    assert expected is not None
    row, heading = "Package: Ten lessons · Hours: 15 h · Price: 310 EUR", "Group lessons (max. 6 pupils per group)"
    assert measured(expected, row, heading) and covers(expected, row, heading)
    assert not measured(expected, row, "Group lessons")


def test_a_short_form_before_a_number_ends_no_sentence() -> None:
    text = "Group lessons run on Mondays, max. 6 pupils each. Private lessons cost 45 EUR an hour."
    assert split_sentences(text) == ["Group lessons run on Mondays, max. 6 pupils each.",
                                     "Private lessons cost 45 EUR an hour."]


def test_who_was_elected_asks_for_the_role_not_for_an_elected_one() -> None:
    assert asked_pair("Who was elected secretary of the rowing club?") is None
    assert asked_pair("Who is the licensed plumber?") == ("licensed", "plumber")
    assert _duty("Who was elected secretary of the rowing club?") == ["secretary"]
    assert _duty("Who was appointed as the head warden in 2024?") == ["warden"]


def test_a_size_code_picks_its_row_not_a_unit_after_a_number() -> None:
    wanted = asked("What does an M-size locker cost per week?")
    assert "size:M" in wanted.literals
    assert literals_held(wanted, "Size: M · Depth: 60 cm · Width: 50 cm")
    assert not literals_held(wanted, "Size: XL · Depth: 90 m · Width: 80 cm")
    assert "size:XL" in asked("How much is a size XL locker?").literals


def test_an_age_band_from_an_age_on_states_a_minimum_age() -> None:
    assert pair_stated(("minimum", "age"), "Anyone from 16 years may help; under-18s need a signed form.")
    assert pair_stated(("minimum", "age"), "The kids' club takes ages 8 to 12.")
    assert not pair_stated(("minimum", "age"), "Helpers are always welcome; under-18s need a signed form.")


def test_a_phrasal_verb_leads_to_its_object_as_the_focus() -> None:
    expected = expectation("What is the deadline to send off for the free sample?")
    assert expected is not None and expected.heads == ("sample",)


def test_a_verb_in_ing_after_a_noun_opens_a_clause_not_a_head() -> None:
    guest = expectation("What does the lodge charge for a guest staying in its annex?")
    assert guest is not None and guest.heads == ("guest",)
    mooring = expectation("How much does a boat mooring in the harbour cost?")
    assert mooring is not None and mooring.heads == ("mooring",)


def test_a_row_naming_a_second_table_in_a_sheet_heads_it_with_the_labels_under_it() -> None:
    text = ("| code | item | price |\n| --- | --- | --- |\n| A1 | Small box | 4 |\n| B2 | Large box | 9 |\n"
            "| Depots in town |  |  |\n| depot | opening hours | notes |\n"
            "| North yard | Mon-Fri 08:00-16:00 | shut all winter |\n")
    passages = split_passages(text)
    depot = next(p for p in passages if "North yard" in p.text)
    assert depot.text == "depot: North yard · opening hours: Mon-Fri 08:00-16:00 · notes: shut all winter"
    assert depot.context == "Depots in town"
    assert "code: A1 · item: Small box · price: 4" in [p.text for p in passages]


def test_a_kind_of_day_asked_picks_the_row_of_its_days() -> None:
    from ragwire.answer.days import kinds_held

    wanted = asked("When does the workshop close on weekdays?").literals
    assert kinds_held(wanted, "Tue to Fri 10:00 - 19:00") == {"weekday"}
    assert not kinds_held(wanted, "Sat and Sun 10:00 - 16:00")
    assert not kinds_held(wanted, "Mon-Fri: 6 EUR · Sat-Sun: 8 EUR")  # a row for both kinds tells neither
    assert kinds_held(asked("Is the pool open at the weekend?").literals, "Sat-Sun 09:00-17:00") == {"weekend"}


def test_a_row_holding_the_asked_value_gives_the_typed_answer_whatever_it_calls_the_thing() -> None:
    import dataclasses

    from ragwire.answer.context import NumberedSource
    from ragwire.answer.passages import Passage
    from ragwire.answer.typed import typed
    from ragwire.retrieval import Hit
    from tests.conftest import ScoredPassage

    expected = expectation("What does one load in the 6 kg drum machine cost?")
    assert expected is not None and expected.heads == ("machine",)
    small = ScoredPassage(1, Passage("item: Washer 6 kg · price: 40 EUR", "", 0), literal=True)
    large = ScoredPassage(1, Passage("item: Washer 12 kg · price: 70 EUR · notes: one duvet per machine", "", 1))
    text = "| item | price |\n| --- | --- |\n| Washer 6 kg | 40 EUR |"
    sources = [NumberedSource(1, text, Hit(text, {"source": "/docs/prices.md", "file_name": "prices.md"}))]
    kept = typed(expected, [small, large], {1: ""}, sources, 0.3, None, whole={})
    assert small in kept and large in kept
    assert typed(expected, [dataclasses.replace(small, literal=False)], {1: ""}, sources, 0.3, None, whole={}) == []


def test_a_vice_or_deputy_role_is_not_named_by_the_role_it_seconds() -> None:
    from ragwire.answer.answerable import role_unmentioned
    from tests.conftest import WordEmbedding

    words = WordEmbedding()
    assert role_unmentioned("Who is the vice-chair of the rowing society?", ["Chair: Ada Quill"], words)
    assert role_unmentioned("Who is the vice-chair of the rowing society?", ["Vice-chair: Ada Quill"], words) == []
    assert role_unmentioned("Who is the deputy head?", ["Head: Ada Quill"], words) == ["deputy head"]


def test_a_noun_phrase_after_who_is_is_asked_who_is_too() -> None:
    from ragwire.answer.parts import split_parts

    assert split_parts("Who is the warden of the boat shed, as well as the chief of the tennis section?") == [
        "Who is the warden of the boat shed?", "Who is the chief of the tennis section?"]
    assert split_parts("Who is the warden of the boat shed, as well as the shed locker rent per year?")[1] == (
        "What is the shed locker rent per year?")
