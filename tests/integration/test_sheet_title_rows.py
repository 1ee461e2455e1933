"""A workbook whose first row is a title keeps its column names (issue 33, round 22).

Sheets people make often open with a title row merged across the columns.  The converter
took that row as the header, so every column but the first was "Unnamed: 1" and the real
header row sat among the data: "Price (EUR)" no longer stood above the prices, and a bare
number in that column was no amount of money.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, write_config


def _workbook(path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Hire"
    sheet.append(["Gullholmen kayak centre, hire rates 2027"])
    sheet.append([])
    sheet.append(["Boat", "Seats", "Price (EUR)"])
    sheet.append(["Single sea kayak", 1, 38])
    sheet.append(["Double sea kayak", 2, 52])
    sheet.append(["Canadian canoe", None, 47])
    sheet.merge_cells("A1:C1")
    book.save(path)


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    root = tmp_path_factory.mktemp("sheet")
    folder = root / "docs"
    folder.mkdir()
    _workbook(folder / "gullholmen-hire.xlsx")
    rag = RAGWire(write_config(root))
    assert rag.ingest_directory(folder)["failed"] == 0
    return rag


def test_a_price_column_under_a_title_row_answers_what_a_boat_costs(rag):
    answer = rag.query("How much does a double sea kayak cost to hire at Gullholmen?")
    assert (answer.refused, cited_files(answer)) == (False, {"gullholmen-hire.xlsx"}), answer.text
    assert "52" in answer.text and "Price (EUR)" in answer.text, answer.text


def test_the_title_row_and_empty_cells_are_not_written_as_data(rag):
    text = " ".join(chunk.page_content for chunk in rag.retrieve("Canadian canoe seats price", top_k=5))
    assert "Unnamed" not in text and "NaN" not in text, text
    assert "Gullholmen kayak centre, hire rates 2027" in text
