"""A "who does it" question is not answered by a passage that names no one (issue 33, round 31).

Fails on round 30's code, which had no such check: "who keeps the boathouse keys" was answered with the
boathouse's opening hours.
"""

from __future__ import annotations

from ragwire.answer.people import names_no_one


def test_a_who_question_over_a_passage_naming_no_one_is_unanswered():
    assert names_no_one("Who keeps the boathouse keys?", ["The boathouse is open from 1 May to 30 September."])
    # Capitals that open a sentence, a column or a line, a code and the question's own names are no one.
    assert names_no_one("Who keeps the Ryeford boathouse keys?",
                        ["Boathouse: open daily · Keys: at the Ryeford kiosk · Fee: GBP 5"])


def test_a_person_a_firm_or_a_place_named_inside_a_sentence_answers():
    assert not names_no_one("Who keeps the boathouse keys?", ["The keys are kept by the bosun, Mira Okonjo."])
    assert not names_no_one("Who repairs the boats?", ["Repairs are done by Tideway Marine in Ryeford."])


def test_questions_of_reach_right_or_role_are_not_read_here():
    assert not names_no_one("Who do I call about a lost key?", ["Ring the office on 01632 960 411."])
    assert not names_no_one("Who can join the rowing club?", ["anyone over 16 who can swim 50 m"])
    assert not names_no_one("Who is the club captain?", ["The club was founded in 1898."])
