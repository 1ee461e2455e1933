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


def test_a_kin_word_quoted_from_files_that_never_use_the_asked_word_is_a_sibling():
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin(),
                          mentioned=lambda word: False) == ("pine", "birch")


def test_a_kin_word_quoted_from_files_that_use_the_asked_word_themselves_is_no_sibling():
    # The file speaks of pine elsewhere: its birch row is no evidence that pine is another row it lacks.
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin(),
                          mentioned=lambda word: word == "pine") is None


def test_the_rows_of_a_scale_stay_siblings_when_the_files_use_the_asked_word():
    # A size names a row whatever else the file says: the small trunk's price is not the medium one's.
    assert quoted_sibling("What does a medium trunk cost?", ["Small trunk: 40 EUR"], _Kin(),
                          mentioned=lambda word: True) == ("medium", "small")


def test_without_a_store_to_ask_the_quotes_alone_decide():
    assert quoted_sibling("What does a pine shelf cost?", ["Birch shelf: 12 EUR"], _Kin()) == ("pine", "birch")


def test_contact_details_naming_the_asked_role_answer_who_holds_it():
    from ragwire.answer.contact import contact_only
    from ragwire.answer.people import states_duty

    line = "Bursar: Ilka Marvendt, tel. 0555 010 122"
    assert contact_only(line)  # a letterhead's shape: a name and a number
    assert states_duty("Who is the bursar of the boat club?", line)
    assert states_duty("Who manages the campsite?", "Site manager: Ilka Marvendt, 0555 010 122")


def test_contact_details_without_the_asked_role_stay_a_letterhead():
    from ragwire.answer.people import states_duty

    assert not states_duty("Who is the bursar of the boat club?", "Boat club, 4 Quay Lane, tel. 0555 010 122")
    assert not states_duty("How do I reach the bursar?", "Bursar: Ilka Marvendt, tel. 0555 010 122")  # no who-question


def test_who_holds_a_role_is_answered_from_the_contact_line_naming_it():
    from ragwire.answer.extractive import extractive_answer

    from .test_extractive import WordEmbedding, _source

    sources = [_source(1, "The boat club meets on the first Monday of each month in the boathouse."),
               _source(2, "Boat club bursar: Ilka Marvendt, tel. 0555 010 122")]
    text, refused = extractive_answer("Who is the bursar of the boat club?", sources, WordEmbedding(), threshold=0.2)
    assert not refused
    assert "Ilka Marvendt" in text
