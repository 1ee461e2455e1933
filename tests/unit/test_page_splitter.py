"""PageSplitter's rules (loader pages > marker > headings for markdown/HTML > one page),
page-local chunks under the page strategy, and page ranges for the other strategies."""

from __future__ import annotations

import pytest

from ragwire.splitting import PageSplitter, split_text
from ragwire.splitting.page_ranges import page_ranges, words


def _summary(pages):
    return [(p["text"], p["page_number"], p["page_label"], p["page_total"]) for p in pages]


# --------------------------------------------------------------------------- PageSplitter.split


def test_loader_pages_win_over_markers_in_the_text():
    pages = [{"page_number": 1, "page_label": "iv", "text": "one <!-- pagebreak --> still one"}]

    assert _summary(PageSplitter().split("ignored", file_type="pdf", pages=pages)) == [
        ("one <!-- pagebreak --> still one", 1, "iv", 1)
    ]


def test_marker_wins_over_headings():
    text = "# A\nalpha\n## B\nbeta<!-- pagebreak --># C\ngamma"

    assert _summary(PageSplitter().split(text, file_type="md")) == [
        ("# A\nalpha\n## B\nbeta", 1, None, 2),
        ("# C\ngamma", 2, None, 2),
    ]


@pytest.mark.parametrize("file_type", ["md", ".md", "markdown", "html", "HTM", None])
def test_markdown_and_html_split_at_headings_with_the_preamble_as_page_1(file_type):
    text = "Preamble text.\n# Intro\nhello\n## Details\nmore\n### Deep\nstays\n"

    assert _summary(PageSplitter().split(text, file_type=file_type)) == [
        ("Preamble text.", 1, None, 3),
        ("# Intro\nhello", 2, "Intro", 3),
        ("## Details\nmore\n### Deep\nstays", 3, "Details", 3),
    ]


def test_max_heading_level_sets_the_deepest_page_heading():
    pages = PageSplitter(max_heading_level=3).split("# A\na\n### C\nc", file_type="md")

    assert [p["page_label"] for p in pages] == ["A", "C"]


@pytest.mark.parametrize("file_type", ["txt", "docx", "csv", "xlsx"])
def test_other_types_are_one_page_even_with_headings(file_type):
    assert _summary(PageSplitter().split("# A\na\n## B\nb", file_type=file_type)) == [("# A\na\n## B\nb", 1, None, 1)]


def test_txt_with_marker_splits_at_the_marker():
    assert [p["text"] for p in PageSplitter().split("a<!-- pagebreak -->b", file_type="txt")] == ["a", "b"]


def test_whitespace_pages_are_dropped_but_numbering_and_total_are_kept():
    text = "first<!-- pagebreak -->  \n <!-- pagebreak -->third<!-- pagebreak -->\n"

    assert _summary(PageSplitter().split(text)) == [("first", 1, None, 4), ("third", 3, None, 4)]


def test_dropped_loader_pages_keep_their_numbering():
    pages = [
        {"page_number": 1, "page_label": "i", "text": "cover"},
        {"page_number": 2, "page_label": "ii", "text": " \n "},
        {"page_number": 3, "page_label": "1", "text": "body"},
        {"page_number": 4, "page_label": "2", "text": ""},
    ]

    assert _summary(PageSplitter().split("", pages=pages)) == [("cover", 1, "i", 4), ("body", 3, "1", 4)]


def test_the_splitter_never_merges_truncates_or_overlaps_pages():
    long_page = "word " * 5000
    text = f"x<!-- pagebreak -->{long_page}<!-- pagebreak -->y"

    pages = PageSplitter().split(text, file_type="txt")

    assert [p["text"] for p in pages] == ["x", long_page.strip(), "y"]


# --------------------------------------------------------------------------- page strategy: page-local chunks


def _long_page(tag: str, sentences: int = 60) -> str:
    return " ".join(f"{tag} sentence number {i} talks about topic {tag}{i}." for i in range(sentences))


def test_a_long_page_becomes_page_local_chunks_that_cover_it_all():
    pages = [
        {"page_number": 1, "page_label": "iv", "text": "short cover"},
        {"page_number": 2, "page_label": "v", "text": _long_page("alpha")},
        {"page_number": 3, "page_label": "vi", "text": _long_page("beta") + " The vault code is 7731."},
    ]

    pieces = split_text("", strategy="page", chunk_size=500, chunk_overlap=50, pages=pages)

    by_page = {}
    for piece in pieces:
        by_page.setdefault(piece.metadata["page_number"], []).append(piece)
        assert len(piece.text) <= 500
        assert piece.metadata["page_total"] == 3
    assert len(by_page[1]) == 1 and len(by_page[2]) > 3 and len(by_page[3]) > 3
    assert {p.metadata["page_label"] for p in by_page[3]} == {"vi"}
    # never crossing pages: no page-2 words in a page-3 chunk
    assert not any("alpha" in p.text for p in by_page[3])
    assert "7731" in by_page[3][-1].text
    # every word of the page is in some chunk
    page_words = set(words(pages[2]["text"]))
    assert page_words <= set(w for p in by_page[3] for w in words(p.text))


def test_a_page_that_fits_is_one_chunk():
    pieces = split_text("a <!-- pagebreak --> b", strategy="page", chunk_size=100, chunk_overlap=10)

    assert [(p.text, p.metadata) for p in pieces] == [
        ("a", {"page_number": 1, "page_total": 2}),
        ("b", {"page_number": 2, "page_total": 2}),
    ]


def test_page_strategy_splits_markdown_files_at_headings_but_not_text_files():
    text = "# A\nalpha\n# B\nbeta"

    md = split_text(text, strategy="page", chunk_size=100, chunk_overlap=10, file_type="md")
    txt = split_text(text, strategy="page", chunk_size=100, chunk_overlap=10, file_type="txt")

    assert [p.metadata.get("page_label") for p in md] == ["A", "B"]
    assert [p.metadata for p in txt] == [{"page_number": 1, "page_total": 1}]


# --------------------------------------------------------------------------- page ranges (other strategies)


def _pages_of(texts, labels=None):
    return [
        {"page_number": i, "page_label": (labels or {}).get(i), "text": text} for i, text in enumerate(texts, 1)
    ]


def test_markdown_chunks_get_the_page_range_they_came_from():
    texts = [_long_page(tag, 20) for tag in ("alpha", "beta", "gamma")]
    # the converted text differs in layout from the page texts: markdown, other line breaks
    text = "# Report\n\n" + " ".join(t.replace(". ", ".\n") for t in texts)

    pieces = split_text(text, strategy="markdown", chunk_size=400, chunk_overlap=40, pages=_pages_of(texts, {2: "ii"}))

    for piece in pieces:
        meta = piece.metadata
        first, last = meta["page_number"], meta["page_end"]
        tags = {tag for tag in ("alpha", "beta", "gamma") if tag in piece.text}
        assert tags == {("alpha", "beta", "gamma")[n - 1] for n in range(first, last + 1)}, piece.text
        assert meta["page_total"] == 3
        assert meta.get("page_label") == ("ii" if first == 2 else None)
    assert any(p.metadata["page_end"] > p.metadata["page_number"] for p in pieces)


def test_page_ranges_survive_ligatures_hyphens_and_case():
    pages = _pages_of(["The ﬁrst page deﬁnes the OFFICIAL ﬁling schedule for every quarter.", "Another page entirely."])

    assert page_ranges(["the first page defines the official filing schedule"], pages) == [
        {"page_number": 1, "page_end": 1, "page_total": 2}
    ]


def test_repeated_text_is_placed_in_document_order():
    boiler = "confidential draft do not distribute outside the team"
    pages = _pages_of([f"{boiler} apples grow on trees", f"{boiler} pears grow on trees too"])

    ranges = page_ranges([f"{boiler} apples grow", f"{boiler} pears grow on trees"], pages)

    assert [r["page_number"] for r in ranges] == [1, 2]


def test_no_pages_or_unplaceable_chunks_get_no_fields():
    assert page_ranges(["anything at all here"], []) == [{}]
    assert page_ranges(["words that never appear anywhere", "ok"], _pages_of(["something else entirely"])) == [{}, {}]
    pieces = split_text("plain text here", strategy="recursive", chunk_size=100, chunk_overlap=0, pages=None)
    assert pieces[0].metadata == {}


def test_unusable_pages_lose_the_page_fields_not_the_file():
    # Guards "page ranges must never fail the file": a page_number that is not a number.
    pieces = split_text(
        "some words that are here", strategy="markdown", chunk_size=100, chunk_overlap=0,
        pages=[{"page_number": "x", "text": "some words that are here"}],
    )

    assert [p.metadata for p in pieces] == [{}]
