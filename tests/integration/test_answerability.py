"""Answerability over examples/docs with questions of our own, not the golden set's: typed questions answered
from the passage holding the value, near-topic ones refused saying what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragwire import RAGWire


ANSWERED = [
    ("How long does a full charge take?", "user-guide.md", "3 hours"),
    ("How much does the calibration mat cost?", "price-list.xlsx", "95"),
    ("What is the price of the drive wheel pair?", "price-list.xlsx", "310"),
    ("How fast can the robot drive on open floor?", "faq.html", "2 metres per second"),
    ("How heavy is the AR-7?", "user-guide.md", "68 kg"),
    ("What is the operating temperature of the AR-7?", "faq.html", "5 °C"),
    ("How long is the warranty?", "warranty-policy.pdf", "24 months"),
    ("How much does an on-site visit cost?", "", "145"),
    ("When was firmware 3.3.1 released?", "release-notes.docx", ""),
    ("Can a robot be returned for a refund?", "warranty-policy.pdf", "refund"),
    ("How quickly does Northwind reply to a warranty claim?", "warranty-policy.pdf", "two working days"),
    ("How many full charge cycles does the battery warranty cover?", "warranty-policy.pdf", "2,000"),
    ("Is flat plastic film detected by the robot?", "user-guide.md", "plastic film"),
]
REFUSED = [
    ("How much does a replacement lidar window cost?", "no amount of money"),
    ("How long does shipping of a spare battery take?", "no duration"),
    ("How tall is the robot?", "no length"),
    ("How much does the Fleet Console cost per robot?", "no amount of money"),
    ("How long does the battery take to cool down after a shift?", "no duration"),
    ("What colours is the AR-7 available in?", ""),
    ("What is the noise level of the charging station?", "no sound level"),
    ("What is the delivery time for a new charging station?", "no duration"),
]


@pytest.fixture(scope="module")
def examples_rag(tmp_path_factory, examples_store) -> RAGWire:
    assert examples_store.stats["failed"] == 0
    return RAGWire(examples_store.copy(tmp_path_factory.mktemp("answerability")))


@pytest.mark.parametrize(("question", "file", "quoted"), ANSWERED, ids=[q for q, _, _ in ANSWERED])
def test_a_question_the_documents_answer_is_still_answered(examples_rag, question, file, quoted):
    answer = examples_rag.query(question)
    assert answer, answer.text
    assert quoted in answer.text
    if file:
        assert file in {Path(c.source).name for c in answer.citations}


@pytest.mark.parametrize(("question", "reason"), REFUSED, ids=[q for q, _ in REFUSED])
def test_a_near_topic_question_the_documents_do_not_answer_is_refused(examples_rag, question, reason):
    answer = examples_rag.query(question)
    assert answer.refused, answer.text
    assert reason in answer.text
