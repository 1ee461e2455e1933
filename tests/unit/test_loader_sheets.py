"""Sheet tables as the converter writes them, tidied: title rows, empty cells, whole numbers."""

from __future__ import annotations

from ragwire.loaders.sheets import tidy_sheet_tables


def test_a_title_row_becomes_a_heading_above_the_table_and_the_real_header_heads_it():
    converted = "\n".join([
        "## Rates",
        "| Harbour kayak hire, season rates | Unnamed: 1 | Unnamed: 2 |",
        "| --- | --- | --- |",
        "| NaN | NaN | NaN |",
        "| Updated in March | NaN | NaN |",
        "| Boat | Hours | Price |",
        "| Single kayak | 2 | EUR 30 |",
    ])
    assert tidy_sheet_tables(converted) == "\n".join([
        "## Rates",
        "### Harbour kayak hire, season rates",
        "",
        "Updated in March",
        "",
        "| Boat | Hours | Price |",
        "| --- | --- | --- |",
        "| Single kayak | 2 | EUR 30 |",
    ])


def test_an_empty_header_cell_is_left_empty_and_the_header_stays():
    converted = "| Unnamed: 0 | January | February |\n| --- | --- | --- |\n| Members | 40 | 42 |"
    assert tidy_sheet_tables(converted) == "|  | January | February |\n| --- | --- | --- |\n| Members | 40 | 42 |"


def test_empty_cells_are_empty_and_whole_numbers_lose_the_float_point():
    converted = "| Room | Beds | Rate |\n| --- | --- | --- |\n| Loft | 2.0 | NaN |\n| Attic | NaN | 12.5 |"
    assert tidy_sheet_tables(converted).split("\n")[2:] == ["| Loft | 2 |  |", "| Attic |  | 12.5 |"]


def test_a_row_of_nothing_but_empty_cells_is_dropped():
    converted = "| Room | Beds |\n| --- | --- |\n| NaN | NaN |\n| Loft | 2 |"
    assert tidy_sheet_tables(converted) == "| Room | Beds |\n| --- | --- |\n| Loft | 2 |"


def test_a_row_whose_cells_hold_the_separator_is_left_as_written():
    converted = "| Code | Meaning |\n| --- | --- |\n| A | B | on | off |\n| C | NaN |"
    assert tidy_sheet_tables(converted).split("\n")[2:] == ["| A | B | on | off |", "| C |  |"]


def test_text_outside_tables_is_untouched():
    text = "## Notes\nPrices include VAT | as of 2027\n\nNaN is a word here."
    assert tidy_sheet_tables(text) == text


def test_a_second_table_a_blank_row_under_the_first_gets_its_own_header():
    converted = "\n".join([
        "| Day | Open | Close |",
        "| --- | --- | --- |",
        "| Monday | 09:00 | 17:00 |",
        "| NaN | NaN | NaN |",
        "| Name | Role | Phone |",
        "| Ada Brook | warden | 555 0101 |",
    ])
    assert tidy_sheet_tables(converted) == "\n".join([
        "| Day | Open | Close |",
        "| --- | --- | --- |",
        "| Monday | 09:00 | 17:00 |",
        "",
        "| Name | Role | Phone |",
        "| --- | --- | --- |",
        "| Ada Brook | warden | 555 0101 |",
    ])


def test_rows_after_a_blank_row_that_give_figures_or_end_the_table_stay_in_it():
    converted = "\n".join([
        "| Boat | Hours | Price |",
        "| --- | --- | --- |",
        "| Kayak | 2 | EUR 30 |",
        "| NaN | NaN | NaN |",
        "| Canoe | 3 | EUR 47 |",
        "| NaN | NaN | NaN |",
        "| Paddles | free | free |",
    ])
    assert tidy_sheet_tables(converted).split("\n")[2:] == [
        "| Kayak | 2 | EUR 30 |", "| Canoe | 3 | EUR 47 |", "| Paddles | free | free |"]
