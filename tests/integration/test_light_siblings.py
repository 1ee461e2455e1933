"""A light word that picks a row, answered with its sibling's row, is refused (issue 33, round 14).

"How much does Fernhill charge to clean a cotton rug?" over a price list of wool and silk rugs:
"cotton" is used elsewhere in the collection (the shop sells cotton bags), so it is no absent
term, and it moves the question less than a key term; before round 14 the silk row came back
with full confidence.  The sibling check now weighs every word that picks a row.
"""

from __future__ import annotations

import pytest

from ragwire import RAGWire

from .helpers import cited_files, ingested

DOCS = {
    "fernhill-rug-cleaning.md": """# Fernhill rug cleaning prices

| Rug | Price per m² | Drying time |
|---|---|---|
| Machine-made wool | EUR 14 | 3 days |
| Hand-knotted silk | EUR 32 | 5 days |

The minimum charge per order is EUR 60. We collect and deliver free within the city.
""",
    "fernhill-shop.md": """# The Fernhill shop

Besides cleaning rugs, our shop on Mill Lane sells cotton tote bags, linen tea towels and beeswax candles.
Open Monday to Saturday, 10:00 to 17:00.
""",
}


@pytest.fixture(scope="module")
def rag(tmp_path_factory) -> RAGWire:
    return ingested(tmp_path_factory.mktemp("light-siblings"), DOCS)


def test_the_row_of_a_sibling_material_is_no_answer(rag) -> None:
    answer = rag.query("How much does Fernhill charge to clean a cotton rug?")
    assert answer.refused, answer.text
    assert "'cotton'" in answer.text


def test_the_row_the_question_names_is_answered(rag) -> None:
    answer = rag.query("How much is cleaning a hand-knotted silk rug at Fernhill?")
    assert not answer.refused, answer.text
    assert "EUR 32" in answer.text and cited_files(answer) == {"fernhill-rug-cleaning.md"}
