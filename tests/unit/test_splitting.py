"""Splitting: heading paths, chunk sizes, PageSplitter's page rules, argument checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_text_splitters import RecursiveCharacterTextSplitter

from ragwire.chunk import Location
from ragwire.splitting import (
    Chunk,
    PageSplitter,
    get_code_splitter,
    get_markdown_splitter,
    get_splitter,
    split_text,
)

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"

GUIDE = """\
Text before any heading.

# Guide

## Install

### Linux

Run the installer.

```bash
# this is a shell comment, not a heading
## nor is this
./install.sh
```

### Windows

Double-click setup.exe.

## Usage

Start the app.
"""


def _markdown(text: str, chunk_size: int = 1000, chunk_overlap: int = 0) -> list[Chunk]:
    return split_text(text, strategy="markdown", chunk_size=chunk_size, chunk_overlap=chunk_overlap)


# --------------------------------------------------------------------------- markdown strategy


def test_markdown_pieces_carry_their_heading_path():
    pieces = _markdown(GUIDE)

    assert [p.metadata.get("heading_path") for p in pieces] == [
        None,
        "Guide > Install > Linux",
        "Guide > Install > Windows",
        "Guide > Usage",
    ]
    assert pieces[0] == Chunk("Text before any heading.")


def test_hash_lines_inside_code_fences_are_not_headings():
    linux = _markdown(GUIDE)[1]

    assert "# this is a shell comment, not a heading\n## nor is this\n./install.sh" in linux.text
    assert linux.text.startswith("# Guide\n\n## Install\n\n### Linux")  # empty parent headings travel along


def test_tilde_fences_and_closing_hashes_are_understood():
    text = "# Top #\n\n~~~\n# not a heading\n~~~\n\n## Child ##\nbody\n"

    pieces = _markdown(text)

    assert [p.metadata["heading_path"] for p in pieces] == ["Top", "Top > Child"]
    assert "# not a heading" in pieces[0].text


def test_oversized_sections_are_split_within_chunk_size_and_keep_the_path():
    body = " ".join(f"Sentence number {i} about lidar calibration." for i in range(200))
    text = f"# Manual\n\n## Calibration\n\n{body}\n\n## Short\n\nTiny section.\n"

    pieces = _markdown(text, chunk_size=300, chunk_overlap=50)

    calibration = [p for p in pieces if p.metadata["heading_path"] == "Manual > Calibration"]
    assert len(calibration) > 10
    # A lone heading line is folded into the next piece, which may grow by a tenth.
    assert all(len(p.text) <= 330 for p in pieces)
    assert calibration[0].text.startswith("# Manual\n\n## Calibration\n\nSentence number 0")
    assert pieces[-1] == Chunk("## Short\n\nTiny section.", Location(heading_path="Manual > Short"))


def test_deeper_heading_after_shallower_resets_the_path():
    text = "# A\n\n## B\n\n### C\n\nc text\n\n# D\n\nd text\n\n## E\n\ne text\n"

    assert [p.metadata["heading_path"] for p in _markdown(text)] == ["A > B > C", "D", "D > E"]


def test_text_without_headings_has_no_heading_path():
    assert _markdown("just prose\n\nmore prose") == [Chunk("just prose\n\nmore prose")]


def test_whitespace_only_input_gives_no_pieces():
    for strategy in ("markdown", "recursive", "code", "page"):
        assert split_text("  \n\n\t ", strategy=strategy, chunk_size=100, chunk_overlap=10) == []


def test_splitting_is_deterministic():
    first = _markdown(GUIDE * 20, chunk_size=200, chunk_overlap=40)
    second = _markdown(GUIDE * 20, chunk_size=200, chunk_overlap=40)

    assert first == second


# --------------------------------------------------------------------------- recursive and code


def test_recursive_strategy_respects_chunk_size():
    text = "\n\n".join(f"Paragraph {i}. " + "word " * (i % 40 + 5) for i in range(100))

    pieces = split_text(text, strategy="recursive", chunk_size=250, chunk_overlap=50)

    assert len(pieces) > 5
    assert all(len(p.text) <= 250 and p.metadata == {} for p in pieces)


def test_recursive_strategy_uses_custom_separators():
    pieces = split_text("a|b|c|d", strategy="recursive", chunk_size=3, chunk_overlap=0, separators=["|"])

    assert [p.text for p in pieces] == ["a|b", "|c", "|d"]


def test_code_strategy_splits_at_function_boundaries():
    source = "\n\n".join(f"def f{i}(x):\n    return x * {i}\n" for i in range(30))

    pieces = split_text(source, strategy="code", chunk_size=120, chunk_overlap=0)

    assert all(len(p.text) <= 120 for p in pieces)
    assert all(p.text.startswith("def f") for p in pieces)


def test_factories_return_recursive_splitters():
    for splitter in (get_splitter(), get_markdown_splitter(), get_code_splitter()):
        assert isinstance(splitter, RecursiveCharacterTextSplitter)
    assert get_code_splitter()._chunk_size == 2000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chunk_size": 100, "chunk_overlap": 100}, r"chunk_overlap \(100\) must be smaller than chunk_size \(100\)"),
        ({"chunk_size": 100, "chunk_overlap": 150}, "chunk_overlap"),
        ({"chunk_size": 0, "chunk_overlap": 0}, "chunk_size must be a positive integer"),
        ({"chunk_size": 100, "chunk_overlap": -1}, "chunk_overlap must be an integer of 0 or more"),
        ({"chunk_size": "100", "chunk_overlap": 10}, "chunk_size"),
    ],
)
def test_bad_chunk_settings_are_rejected_when_the_splitter_is_built(kwargs, message):
    for factory in (get_splitter, get_markdown_splitter, get_code_splitter):
        with pytest.raises(ValueError, match=message):
            factory(**kwargs)
    with pytest.raises(ValueError, match=message):
        split_text("text", strategy="markdown", **kwargs)


def test_bad_separators_are_rejected():
    with pytest.raises(ValueError, match="separators"):
        get_splitter(separators="\n")


def test_unknown_strategy_lists_the_valid_ones():
    with pytest.raises(ValueError, match="strategy must be one of markdown, recursive, code, page; got 'semantic'"):
        split_text("text", strategy="semantic", chunk_size=100, chunk_overlap=0)


# --------------------------------------------------------------------------- PageSplitter


def test_page_splitter_matches_the_spec_example():
    assert PageSplitter().split("intro <!-- pagebreak --> details") == [
        {"text": "intro", "page_number": 1, "page_label": None, "page_total": 2},
        {"text": "details", "page_number": 2, "page_label": None, "page_total": 2},
    ]


def test_whitespace_pages_are_dropped_but_numbering_is_kept():
    pages = PageSplitter().split("one<!-- pagebreak -->  \n <!-- pagebreak -->three<!-- pagebreak -->")

    assert [(p["page_number"], p["text"], p["page_total"]) for p in pages] == [(1, "one", 4), (3, "three", 4)]


def test_headings_start_pages_labelled_with_the_heading():
    text = "# Intro\nhello\n\n## Part A\n\nalpha\n\n### Detail\n\nstays in A\n\n## Part B\nbeta\n"

    pages = PageSplitter().split(text)

    assert [(p["page_number"], p["page_label"]) for p in pages] == [(1, "Intro"), (2, "Part A"), (3, "Part B")]
    assert "### Detail\n\nstays in A" in pages[1]["text"]
    assert {p["page_total"] for p in pages} == {3}


def test_max_heading_level_controls_which_headings_break_pages():
    text = "# Intro\nhello\n## Part A\nalpha\n"

    assert [p["page_label"] for p in PageSplitter(max_heading_level=1).split(text)] == ["Intro"]


def test_text_before_the_first_heading_is_its_own_page():
    pages = PageSplitter().split("preface\n\n# One\nbody\n")

    assert [(p["page_number"], p["page_label"], p["text"]) for p in pages] == [
        (1, None, "preface"),
        (2, "One", "# One\nbody"),
    ]


def test_page_marker_wins_over_headings():
    pages = PageSplitter().split("# A\none\n## B\ntwo<!-- pagebreak -->## C\nthree")

    assert [(p["text"], p["page_label"]) for p in pages] == [("# A\none\n## B\ntwo", None), ("## C\nthree", None)]


def test_headings_inside_fences_do_not_break_pages():
    pages = PageSplitter().split("# Real\n\n```\n# fake\n```\n")

    assert len(pages) == 1 and pages[0]["page_label"] == "Real"


def test_text_without_marker_or_headings_is_one_page():
    assert PageSplitter().split("  just one page  ") == [
        {"text": "just one page", "page_number": 1, "page_label": None, "page_total": 1}
    ]


def test_custom_page_marker():
    pages = PageSplitter(page_marker="\f").split("a\fb")

    assert [p["text"] for p in pages] == ["a", "b"]


def test_split_pages_keeps_loader_numbering_and_labels():
    pages = [
        {"page_number": 1, "page_label": "i", "text": "cover"},
        {"page_number": 2, "page_label": "ii", "text": "   "},
        {"page_number": 3, "page_label": "1", "text": "body\n"},
    ]

    assert PageSplitter().split_pages(pages) == [
        {"text": "cover", "page_number": 1, "page_label": "i", "page_total": 3},
        {"text": "body", "page_number": 3, "page_label": "1", "page_total": 3},
    ]


def test_split_pages_never_splits_a_long_page():
    long_text = "word " * 10_000

    pages = PageSplitter().split_pages([{"page_number": 1, "page_label": None, "text": long_text}])

    assert [page["text"] for page in pages] == [long_text.strip()]


def test_split_pages_rejects_pages_without_text():
    with pytest.raises(ValueError, match=r"pages\[0\]"):
        PageSplitter().split_pages(["not a dict"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"page_marker": ""}, "page_marker"),
        ({"max_heading_level": 0}, "max_heading_level"),
        ({"max_heading_level": 7}, "1 to 6"),
    ],
)
def test_page_splitter_checks_its_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PageSplitter(**kwargs)


# --------------------------------------------------------------------------- page strategy


def test_page_strategy_uses_pdf_pages_from_the_page_loader():
    from ragwire.loaders import PageLoader

    result = PageLoader().load(CORPUS / "tiny.pdf")

    pieces = split_text(result["text_content"], strategy="page", chunk_size=1000, chunk_overlap=0, pages=result["pages"])

    assert [p.metadata for p in pieces] == [{"page_number": 1, "page_total": 2}, {"page_number": 2, "page_total": 2}]
    assert "1,240 degrees" in pieces[0].text and "kiln wash" in pieces[1].text


def test_page_strategy_adds_page_label_only_when_known():
    pieces = split_text("# Alpha\na\n## Beta\nb", strategy="page", chunk_size=10, chunk_overlap=0)

    assert [p.metadata for p in pieces] == [
        {"page_number": 1, "page_total": 2, "page_label": "Alpha"},
        {"page_number": 2, "page_total": 2, "page_label": "Beta"},
    ]


def test_page_strategy_honours_the_marker():
    pieces = split_text(
        "first ===PAGE=== second", strategy="page", chunk_size=100, chunk_overlap=5, page_marker="===PAGE==="
    )

    assert [(p.text, p.metadata["page_number"]) for p in pieces] == [("first", 1), ("second", 2)]


def test_a_lone_title_line_is_folded_into_the_text_that_follows():
    # Regression: SciFact files (a title line, a blank line, a long abstract) gave
    # title-only chunks for 30% of the corpus.
    abstract = " ".join(f"Finding {i} holds in mice." for i in range(120))
    text = f"Vitamin D and bone density\n\n{abstract}\n"

    for strategy in ("markdown", "recursive"):
        pieces = split_text(text, strategy=strategy, chunk_size=400, chunk_overlap=40)
        assert pieces[0].text.startswith("Vitamin D and bone density\n\nFinding 0"), strategy
        assert all(len(p.text) > 40 for p in pieces), strategy


def test_a_chunk_has_a_typed_field_for_every_location_field_ragwire_writes():
    from dataclasses import fields

    from ragwire.fields import LOCATION_FIELDS

    assert {f.name for f in fields(Location)} == set(LOCATION_FIELDS)


def test_a_chunk_round_trips_its_stored_location_and_ignores_other_keys():
    stored = {"page_number": 1, "page_end": 2, "page_total": 2, "page_starts": [0, 1069], "source": "/x.pdf"}
    chunk = Chunk.at("text", stored)
    assert chunk.location.page_starts == (0, 1069) and chunk.location.heading_path is None
    assert chunk.metadata == {"page_number": 1, "page_end": 2, "page_total": 2, "page_starts": [0, 1069]}
