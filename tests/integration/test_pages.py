"""End to end: a fact at the end of a long page 3 is cited as page 3, with the page strategy
(page-local chunks) and with the default markdown strategy (page ranges by alignment)."""

from __future__ import annotations

import pytest

from ragwire import RAGWire
from tests.pdfs import write_pdf

from .helpers import write_config

_SUBJECTS = ["The harbour crane", "A ceramic kiln", "The village choir", "Our bakery", "The tram depot",
             "A beekeeper", "The river ferry", "The orchard", "A clockmaker", "The lighthouse"]
_ACTIONS = ["was inspected on a Tuesday", "needed new paint", "ran late in the winter", "won a small prize",
            "moved to a new street", "opened an hour earlier", "was featured in the newspaper",
            "hired two apprentices", "changed its suppliers", "kept careful records"]
FACT = "The access code for the Lisbon archive vault is 7731-KESTREL, issued by the night warden."
QUESTION = "What is the access code for the Lisbon archive vault?"


def _filler(seed: int, sentences: int) -> str:
    return " ".join(
        f"{_SUBJECTS[(seed + i) % 10]} {_ACTIONS[(seed * 3 + i * 7) % 10]} in year {1900 + seed * 50 + i}."
        for i in range(sentences)
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    pages = [_filler(1, 8), _filler(2, 12), _filler(3, 60) + " " + FACT, _filler(4, 10)]
    assert len(pages[2]) > 3000  # far beyond all-MiniLM-L6-v2's 256-token window
    return write_pdf(root / "docs" / "report.pdf", pages)


@pytest.mark.parametrize(
    "splitter",
    [
        {"strategy": "page", "chunk_size": 1000, "chunk_overlap": 150},
        {"strategy": "markdown", "chunk_size": 1000, "chunk_overlap": 150},
    ],
    ids=["page", "markdown"],
)
def test_a_fact_at_the_end_of_a_long_page_is_cited_on_page_3(tmp_path, report, splitter):
    rag = RAGWire(write_config(tmp_path, splitter=splitter))
    stats = rag.ingest_documents([report])
    assert stats["processed"] == 1 and stats["failed"] == 0, stats

    dense = rag.retrieve(QUESTION, top_k=1, search_type="similarity")
    assert "7731-KESTREL" in dense[0].page_content
    assert dense[0].metadata["page_number"] == 3
    assert dense[0].metadata["page_total"] == 4
    assert dense[0].metadata.get("page_end", 3) == 3  # set by the markdown strategy only

    answer = rag.query(QUESTION)
    assert "7731-KESTREL" in answer.text, answer.formatted()
    assert answer.citations[0].page_number == 3
    assert "report.pdf, page 3" in answer.formatted()

    on_page_3 = rag.retrieve("archive vault", top_k=20, filters={"page_number": 3})
    assert on_page_3 and all(d.metadata["page_number"] == 3 for d in on_page_3)
