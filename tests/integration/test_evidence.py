"""Extractive answers decided by evidence (issue 33), over a small corpus of our own on the real store and model.

Each test guards a failure of the answerer before issue 33: a term no document uses
answered with a near-topic quote; "how much does X weigh" read as a question about
money; amounts in NOK not seen as money; a scanned page's lines dropped as headings;
a second question after ", and in which" left unsplit.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "hub-guide.md": """# Lumo Hub guide

## Connecting

The Lumo Hub joins your home network over Wi-Fi on the 2.4 GHz band. Pair a phone with the hub over
Bluetooth during setup; the app finds it within a minute.

## Hardware

The Lumo Hub weighs 340 g and measures 12 by 12 centimetres. It is made in Tampere by Lumo Oy.
The hub runs on a 5 V USB-C supply and draws under 3 W.
""",
    "ferry-fares.md": """# Island ferry fares

Tickets are sold at the harbour kiosk and on board.

A single adult ticket costs NOK 89. A child ticket costs 45 kroner. Bicycles travel for NOK 30 each.
Season passes are sold for 1450 NOK and are valid for twelve months.
""",
    # A scan as OCR returns it: one line per printed row, no final punctuation, a blank line between rows.
    "library-notice-scan.txt": """HARBOUR STREET PUBLIC LIBRARY

Reading room opens daily at 08:30

Members may borrow up to 12 books at a time

Late returns are charged 5 kroner per day
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("evidence"), DOCS)


def test_a_salient_term_no_document_mentions_is_refused_naming_the_term(rag):
    answer = rag.query("Which Zigbee channel does the Lumo Hub use?")
    assert answer.refused, answer.text
    assert "nothing in the documents mentions 'Zigbee'" in answer.text


def test_how_much_does_x_weigh_is_answered_with_the_weight(rag):
    answer = rag.query("How much does the Lumo Hub weigh?")
    assert answer, answer.text
    assert "340 g" in answer.text and cited_files(answer) == {"hub-guide.md"}


def test_an_amount_in_nok_is_answered(rag):
    answer = rag.query("How much is a single adult ticket on the island ferry?")
    assert answer, answer.text
    assert "NOK 89" in answer.text and "ferry-fares.md" in cited_files(answer)


def test_a_scanned_pages_line_without_final_punctuation_is_quoted(rag):
    answer = rag.query("How many books can a library member borrow at once?")
    assert answer, answer.text
    assert "12 books" in answer.text and "library-notice-scan.txt" in cited_files(answer)


def test_a_second_question_after_and_in_which_is_answered_as_its_own_part(rag):
    answer = rag.query("How much does the Lumo Hub weigh, and in which city is it made?", refine=True)
    assert answer, answer.text
    assert "340 g" in answer.text and "Tampere" in answer.text
