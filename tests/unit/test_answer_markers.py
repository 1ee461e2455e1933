"""The citation marker grammar lives in answer/citations.py alone; answers carry marker spans and quotes for renderers."""

from __future__ import annotations

import re
from pathlib import Path

from ragwire.answer.citations import marker_spans, renumber, without_markers

# A regex literal matching "[digits]" the way a citation parser would.
_GRAMMAR = re.compile(r"\\\[\(?\\d")


def test_no_module_but_citations_and_no_page_script_parses_markers():
    # Regression: four copies (citations.py, refine_offline.py, web/pages.py, web/static/app.js) drifted apart (issue 33).
    holders = [p for p in [*Path("ragwire").rglob("*.py"), Path("ragwire/web/static/app.js")]
               if _GRAMMAR.search(p.read_text(encoding="utf-8")) and p.name != "citations.py"]
    assert holders == []


def test_the_page_places_citations_by_spans_and_highlights_citation_quotes():
    script = Path("ragwire/web/static/app.js").read_text(encoding="utf-8")
    assert "answer.markers" in script and "citation.quotes" in script
    assert "matchAll(" not in script


def test_marker_spans_point_at_the_markers_and_name_valid_sources_only():
    text = "Charging takes 3 hours [1]. It weighs 68 kg [2, 9]. Nothing here [9]."
    spans = marker_spans(text, {1, 2})
    assert [text[m.start:m.end] for m in spans] == ["[1]", "[2, 9]"]
    assert [m.sources for m in spans] == [[1], [2]]


def test_renumbering_and_removing_markers_share_the_one_grammar():
    assert renumber("A [1]. B [2-3].", {1: 4, 2: 5, 3: 6}) == "A [4]. B [5, 6]."
    assert without_markers("The warranty lasts 24 months [1, 2].") == "The warranty lasts 24 months."


def test_an_extraction_renders_its_quotes_once_with_markers_and_runs_prose_of_one_source_on():
    from ragwire.answer.extraction import Extraction, Quote

    extraction = Extraction([Quote(2, "The hub weighs 340 g.", (10, 31), 1),
                             Quote(2, "It is made in Tampere."),
                             Quote(1, "Weight: 340 g", heading="Hardware")])
    text, refused = extraction.render()
    assert not refused
    assert text == "The hub weighs 340 g [2]. It is made in Tampere [2].\nHardware — Weight: 340 g [1]"
    assert Extraction.refused("nothing in the documents mentions 'Zigbee'", ["Zigbee"]).render() == (
        "nothing in the documents mentions 'Zigbee'", True)
