"""Round 39: what the quoted files say themselves decides whether a kin word is a sibling."""

from __future__ import annotations

from ragwire.answer.siblings import quoted_sibling
from ragwire.answer.text import words


class _Kin:
    """Word vectors in which a few words are near each other, as the real model puts them; the rest are apart."""

    NEAR = {"pine": 1, "birch": 1, "oak": 1}

    def _vector(self, text: str) -> list[float]:
        out = [0.0] * 64
        for word in words(text):
            out[self.NEAR.get(word, 2 + sum(map(ord, word)) % 62)] += 1.0
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


def test_a_kin_word_quoted_from_files_that_never_use_the_asked_word_is_a_sibling() -> None:
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin(),
                          mentioned=lambda word: False) == ("pine", "birch")


def test_a_kin_word_quoted_from_files_that_use_the_asked_word_themselves_is_no_sibling() -> None:
    # The file speaks of pine elsewhere: its birch row is no evidence that pine is another row it lacks.
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin(),
                          mentioned=lambda word: word == "pine") is None


def test_the_rows_of_a_scale_stay_siblings_when_the_files_use_the_asked_word() -> None:
    # A size names a row whatever else the file says: the small trunk's price is not the medium one's.
    assert quoted_sibling("What does a medium trunk cost?", ["Small trunk: 40 EUR"], _Kin(),
                          mentioned=lambda word: True) == ("medium", "small")


def test_without_a_store_to_ask_the_quotes_alone_decide() -> None:
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin()) == ("pine", "birch")


def test_contact_details_naming_the_asked_role_answer_who_holds_it() -> None:
    from ragwire.answer.contact import contact_only
    from ragwire.answer.people import states_duty

    line = "Bursar: Ilka Marvendt, tel. 0555 010 122"
    assert contact_only(line)  # a letterhead's shape: a name and a number
    assert states_duty("Who is the bursar of the boat club?", line)
    assert states_duty("Who manages the campsite?", "Site manager: Ilka Marvendt, 0555 010 122")


def test_contact_details_without_the_asked_role_stay_a_letterhead() -> None:
    from ragwire.answer.people import states_duty

    assert not states_duty("Who is the bursar of the boat club?", "Boat club, 4 Quay Lane, tel. 0555 010 122")
    assert not states_duty("How do I reach the bursar?", "Bursar: Ilka Marvendt, tel. 0555 010 122")  # no who-question


def test_who_holds_a_role_is_answered_from_the_contact_line_naming_it() -> None:
    from ragwire.answer.extractive import extractive_answer

    from .test_extractive import WordEmbedding, _source

    sources = [_source(1, "The boat club meets every Tuesday evening in the boathouse."),
               _source(2, "Boat club bursar: Ilka Marvendt, tel. 0555 010 122")]
    text, refused = extractive_answer("Who is the bursar of the boat club?", sources, WordEmbedding(), threshold=0.2)
    assert not refused
    assert "Ilka Marvendt" in text


class _Counts:
    """A store's term counts per file: ``{(term, file): chunks}``."""

    def __init__(self, counts: dict[tuple[str, str], int]) -> None:
        self.counts = counts

    def documents_with(self, term: str, source: str | None = None) -> int | None:
        return self.counts.get((term, source or ""), 0)

    def refresh(self) -> None:
        pass


def test_a_file_mentioning_the_named_owner_of_the_thing_asked_names_it_for_all_its_rows() -> None:
    from ragwire.answer.expectations import expectation
    from ragwire.answer.typed import naming_focus

    from .test_extractive import _source

    question = "What date is the prize giving of Brindlewood Academy?"
    sources = [_source(1, "Dates: 14 May sports day, 2 June prize giving"), _source(2, "Term dates of another school")]
    store = _Counts({("brindlewood", "/docs/1.md"): 3})
    assert naming_focus(expectation(question), sources, question, store) == {"/docs/1.md": " brindlewood"}


def test_a_name_before_the_thing_picks_a_row_and_is_not_given_by_a_file_mentioning_it() -> None:
    from ragwire.answer.expectations import expectation
    from ragwire.answer.typed import naming_focus

    from .test_extractive import _source

    question = "How much is the Larkspur plan?"
    sources = [_source(1, "Plans: Basic 10 EUR, Plus 20 EUR")]
    store = _Counts({("larkspur", "/docs/1.md"): 2})
    assert naming_focus(expectation(question), sources, question, store) == {}


def test_a_change_of_price_is_stated_as_documents_write_it() -> None:
    from ragwire.answer.changes import states_change

    assert states_change("discount", "Parties of eight or more get 15 % off the bill.")
    assert states_change("reductions", "Pensioners pay €3 less on weekdays.")
    assert states_change("surcharge", "Payment by card: +3 % on the total")
    assert states_change("surcharges", "We add 4 % for deliveries after 18:00")


def test_a_price_alone_states_no_change_and_other_words_name_none() -> None:
    from ragwire.answer.changes import states_change

    assert not states_change("discount", "Day ticket: €12, open 10 to 18")
    assert not states_change("surcharge", "Delivery: €6 per order")
    assert not states_change("price", "Parties of eight or more get 15 % off the bill.")


def test_a_discount_no_document_names_is_grounded_by_the_share_taken_off() -> None:
    from ragwire.answer.evidence import grounded

    from .test_extractive import WordEmbedding

    passages = ["Pottery workshop parties of six and over get 10 % off.", "The pottery workshop is in the old mill."]
    assert grounded(["discount"], passages, WordEmbedding()) == [{"discount"}, set()]


def test_a_currency_sign_before_its_amount_does_not_end_a_sentence() -> None:
    from ragwire.answer.passages import split_sentences

    assert split_sentences("Rehearsal room C kr. 95,- per hour. Lockers kr. 30,- per month.") == [
        "Rehearsal room C kr. 95,- per hour.", "Lockers kr. 30,- per month."]
    # A short word that is no currency sign still ends its sentence before a number.
    assert split_sentences("The last ferry leaves at ten. 40 cars fit on deck.") == [
        "The last ferry leaves at ten.", "40 cars fit on deck."]


def test_a_focus_of_names_alone_is_named_by_a_file_mentioning_them() -> None:
    from ragwire.answer.expectations import expectation
    from ragwire.answer.typed import naming_focus

    from .test_extractive import _source

    question = "How much deposit does Mr Quillfeather have to pay to book the hall?"
    assert all(h in ("quillfeather", "mr") for h in expectation(question).heads)
    sources = [_source(1, "A deposit of 25 % is due by 1 May."), _source(2, "Hall hire terms")]
    store = _Counts({("quillfeather", "/docs/1.md"): 1, ("mr", "/docs/1.md"): 1})
    assert naming_focus(expectation(question), sources, question, store) == {"/docs/1.md": " quillfeather mr"}


def test_a_code_in_the_focus_names_a_row_and_is_not_given_by_a_file_mentioning_it() -> None:
    from ragwire.answer.expectations import expectation
    from ragwire.answer.typed import naming_focus

    from .test_extractive import _source

    question = "What does KB-7 cost per month?"
    assert expectation(question).heads == ("kb-7",)
    sources = [_source(1, "Unit KB-2: 120 EUR per month")]
    store = _Counts({("kb-7", "/docs/1.md"): 1})
    assert naming_focus(expectation(question), sources, question, store) == {}


def test_a_word_for_any_offer_is_named_by_its_kind_s_row() -> None:
    from ragwire.answer.extractive import extractive_answer

    from .test_extractive import WordEmbedding, _source

    sources = [_source(1, "Turnaround times.\n\nExpress: 24 hours, price plus 40%."),
               _source(2, "Standard turnaround: 10 working days.")]
    text, refused = extractive_answer("How much extra does the 24-hour express service cost?", sources, WordEmbedding(),
                                      threshold=0.2)
    assert not refused, text
    assert "plus 40%" in text


def test_the_kind_of_an_offer_is_read_only_when_its_head_is_a_word_for_any_offer() -> None:
    from ragwire.answer.expectations import expectation
    from ragwire.answer.typed import _kind_named

    assert _kind_named(expectation("How much extra does the express service cost?")) == "express"
    assert _kind_named(expectation("How much is the express ferry?")) == ""
