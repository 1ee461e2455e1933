"""Citations of chunks that span pages: the page of the quoted sentence, else the whole range."""

from __future__ import annotations

from langchain_core.documents import Document

from ragwire.answer import build_context, resolve

PAGE_1 = "The crane was inspected on a Tuesday."
PAGE_2 = "The kiln needed new paint in the spring."
PAGE_3 = "The vault code is 7731-KESTREL, issued by the night warden."
TEXT = f"{PAGE_1}\n\n{PAGE_2}\n\n{PAGE_3}"
META = {"source": "/d/manual.pdf", "file_name": "manual.pdf", "page_number": 4, "page_end": 6,
        "page_label": "iv", "page_starts": [0, TEXT.index(PAGE_2), TEXT.index(PAGE_3)]}


def _sources(meta=META):
    return build_context([Document(page_content=TEXT, metadata=dict(meta))], 12_000)


def test_a_quoted_sentence_is_cited_at_its_own_page():
    _, [citation], _ = resolve("The vault code is 7731-KESTREL, issued by the night warden [1].", _sources())
    assert (citation.page_number, citation.page_end, citation.page_label) == (6, None, None)
    assert citation.location == "manual.pdf, page 6"


def test_quotes_from_two_pages_cite_both_and_the_first_page_keeps_its_label():
    _, [citation], _ = resolve("The crane was inspected on a Tuesday [1]. The kiln needed new paint [1].", _sources())
    assert (citation.page_number, citation.page_end, citation.page_label) == (4, 5, "iv")
    assert citation.location == "manual.pdf, pages 4–5"


def test_a_paraphrase_that_cannot_be_found_cites_the_whole_page_range():
    _, [citation], _ = resolve("A code opens the vault [1].", _sources())
    assert (citation.page_number, citation.page_end) == (4, 6)
    assert citation.location == "manual.pdf, pages 4–6"


def test_a_one_page_chunk_is_cited_as_before():
    meta = {"source": "/d/a.pdf", "file_name": "a.pdf", "page_number": 2, "page_end": 2}
    _, [citation], _ = resolve("The vault code is 7731-KESTREL [1].", _sources(meta))
    assert (citation.page_number, citation.page_end, citation.location) == (2, None, "a.pdf, page 2")
