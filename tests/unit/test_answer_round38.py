"""Round 38 of issue 33: "who does …" and "who is the …" answered by the passage that names a person."""

from __future__ import annotations

from ragwire.answer.contact import asks_contact
from ragwire.answer.extractive import extractive_answer
from ragwire.answer.people import _names_person, naming_someone

from .test_extractive import WordEmbedding, _source


def _naming(question: str, passages: list[str]) -> list[str]:
    return naming_someone(question, passages, lambda p: p, lambda p: "Kettle Point Boat Club")


def test_who_does_something_keeps_the_passages_that_name_a_person() -> None:
    passages = ["The boathouse opens on 1 May.", "Racks cost NZ$60 a season.", "Boathouse keeper: Tamsin Orrell."]
    assert _naming("Who looks after the boathouse at Kettle Point?", passages) == ["Boathouse keeper: Tamsin Orrell."]


def test_the_passage_naming_the_role_asked_comes_before_one_naming_another_person() -> None:
    passages = ["Club captain: Ilse Marwitz", "Treasurer: Oskar Brenneke", "Coach: Yannick Odoemena"]
    assert _naming("Who is the treasurer at Lindwurm Rowing Club?", passages) == ["Treasurer: Oskar Brenneke"]
    assert _naming("Who coaches the juniors at Lindwurm?", passages) == ["Coach: Yannick Odoemena"]


def test_questions_of_right_are_not_narrowed_to_people() -> None:
    passages = ["Boathouse keeper: Tamsin Orrell.", "Members may bring two guests."]
    assert _naming("Who can bring guests to the boathouse?", passages) == []
    assert _naming("Who gets a discount on racks?", passages) == []


def test_whom_to_turn_to_is_answered_by_a_passage_naming_a_person() -> None:
    passages = ["Racks are checked every spring.", "Boathouse keeper: Tamsin Orrell, 021 555 0148."]
    assert _naming("Who do I call about a broken rack?", passages) == ["Boathouse keeper: Tamsin Orrell, 021 555 0148."]
    assert _naming("Who should a visiting crew ask about racks?", passages) == [
        "Boathouse keeper: Tamsin Orrell, 021 555 0148."]


def test_a_person_named_with_what_the_act_is_done_to_comes_before_one_named_with_a_role() -> None:
    passages = ["Director: Ines Valdrighi", "Physics and chemistry: Tomasz Wielgosz"]
    found = naming_someone("Who teaches chemistry at Brightfield Tutors?", passages, lambda p: p, lambda p: "tutors")
    assert found == ["Physics and chemistry: Tomasz Wielgosz"]


def test_months_and_capitalised_dictionary_words_name_no_person() -> None:
    assert not _names_person("Summer camps (June to July) are run for Masters paddlers.", set())
    assert not _names_person("This is the Safety Notes sheet of the club.", set())
    assert _names_person("Head coach: Rangi Whatuora", set())


def test_a_hyphenated_given_name_and_a_closing_full_stop_still_name_a_person() -> None:
    assert _names_person("Manager: Kim Soo-ah.", set())
    assert _names_person("Payments: Treasurer Dr. Amani Wekesa.", set())


def test_a_name_the_question_or_the_title_gives_is_not_the_person_asked_for() -> None:
    assert not _names_person("Welcome to Tamarindo Kitchen!", {"tamarindo", "kitchen"})


def test_a_capitalised_contact_word_inside_a_question_is_part_of_a_name() -> None:
    assert not asks_contact("Who coaches the juniors at Otter Reach?")
    assert not asks_contact("How long is the Open Water course?")
    assert asks_contact("How do I reach the club office?")
    assert asks_contact("Where is the Open Water course held?")


def test_who_looks_after_something_quotes_the_person_not_the_nearer_dates() -> None:
    sources = [
        _source(1, "The Kettle Point boathouse opens on 1 May and closes on 30 September. Racks at the boathouse cost "
                   "NZ$60 a season."),
        _source(2, "The boathouse keeper is Tamsin Orrell."),
    ]
    text, refused = extractive_answer("Who looks after the boathouse at Kettle Point?", sources, WordEmbedding(),
                                      threshold=0.2)
    assert not refused
    assert text == "The boathouse keeper is Tamsin Orrell [2]."


def test_a_person_named_beside_a_word_for_a_role_comes_before_a_place_name() -> None:
    passages = ["Bookings at the Kranzhof valley station.", "Head of ski school: Ottilie Wernsdorf"]
    found = naming_someone("Who runs the Brackenfell ski school?", passages, lambda p: p, lambda p: "Brackenfell")
    assert found == ["Head of ski school: Ottilie Wernsdorf"]


def test_the_people_a_service_is_for_are_no_role() -> None:
    from ragwire.answer.people import _by_role, _named_people

    assert not _by_role(_named_people("Children under 5 travel free on the Pfannkogel lift", set()))
    assert _by_role(_named_people("Lift attendant: Ottilie Wernsdorf", set()))


def test_a_compound_of_dictionary_words_is_a_name_only_after_a_capitalised_word() -> None:
    assert not _names_person("Members: CHF 27 · Non-members: CHF 39", set())
    assert _names_person("Club captain: Ho Mei-lin", set())


def test_a_kind_of_person_is_read_one_way() -> None:
    from ragwire.answer.lexicon import lexicon

    assert lexicon().kind_of("warden", "person") and lexicon().kind_of("coordinator", "person")
    assert not lexicon().kind_of("group", "person") and not lexicon().kind_of("station", "person")


def test_a_subject_pronoun_after_the_role_opens_a_clause_about_it() -> None:
    passages = ["Pay by bank transfer to Ndovu Savings, account 4471.", "Treasurer: Amani Wekesa"]
    found = naming_someone("Who is the treasurer we pay for a hall booking?", passages, lambda p: p, lambda p: "hall")
    assert found == ["Treasurer: Amani Wekesa"]


def test_a_shortened_given_name_or_title_before_a_name_does_not_end_the_sentence() -> None:
    from ragwire.answer.passages import split_sentences

    text = "Ask our shop supervisor, Ma. Teodora Bautista, at the counter. Lost property waits at the desk for 30 days."
    assert split_sentences(text) == [
        "Ask our shop supervisor, Ma. Teodora Bautista, at the counter.", "Lost property waits at the desk for 30 days."]
    assert split_sentences("The ferry leaves from Mt. Maunganui wharf every hour. Tickets are sold on board.") == [
        "The ferry leaves from Mt. Maunganui wharf every hour.", "Tickets are sold on board."]
    assert split_sentences("The yearly fee for the choir is 1 800 Kč. Pupils and players under 19 pay half of it.") == [
        "The yearly fee for the choir is 1 800 Kč.", "Pupils and players under 19 pay half of it."]


def test_a_head_of_the_focus_the_quotes_and_their_files_never_state_objects() -> None:
    from ragwire.answer.siblings import unstated_head

    quoted = ["Keg of pale ale, 30 l: 2 100 Kč per day"]
    question = "What does a keg of porter cost to hire?"
    assert unstated_head(question, quoted, lambda word: False) == ("porter", "keg")
    assert unstated_head(question, quoted, lambda word: word == "porter") is None  # the file has a porter row
    assert unstated_head(question, ["Keg of smoked porter, 30 l: 2 300 Kč per day"], lambda word: False) is None
    # A payer is no thing of its own: "entry" for adults may well be the admission asked about.
    assert unstated_head("What does entry for seniors cost on fair days?", ["Admission: 6 € for seniors"], lambda w: False) is None


def test_a_head_the_quotes_never_state_is_a_decisive_objection() -> None:
    from ragwire.answer.decision import DECISIVE
    from ragwire.answer.objections import objections

    class Counts:  # the store's counts of one file's chunks: no chunk says "porter"
        def documents_with(self, term: str, source: str | None = None) -> int | None:
            return 0 if term == "porter" else 1

        def refresh(self) -> None:
            pass

    row = "Keg of pale ale, 30 l: 2 100 Kč per day"
    found = dict(objections("What does a keg of porter cost to hire?", [row], [_source(1, row)], [], Counts(),
                            WordEmbedding()))
    assert "sibling_quoted" in found and "sibling_quoted" in DECISIVE
    assert found["sibling_quoted"].refusal.reason.endswith("give the keg but never say 'porter'.")


def test_who_is_doing_something_asks_the_act_as_who_does_it() -> None:
    from ragwire.answer.people import WHO_DOES

    passages = ["The walk starts at 10:00 from the quay steps.", "Walk leader: Oonagh Feeney"]
    assert _naming("Who is leading the harbour walk on Sunday?", passages) == ["Walk leader: Oonagh Feeney"]
    assert WHO_DOES.match("Who is leading the walk?") and not WHO_DOES.match("Who is the walk leader?")
