"""How `ragwire retrieve` prints a result's place and score."""

from ragwire.cli import score_text
from ragwire.cli.output import pages


def test_a_printed_page_label_is_preferred_to_the_position():
    assert pages({"page_number": 4, "page_label": "iv"}) == "page iv"
    assert pages({"page_number": 4}) == "page 4"


def test_a_chunk_over_two_pages_shows_the_range():
    assert pages({"page_number": 3, "page_end": 4, "page_label": "3"}) == "pages 3–4"
    assert pages({"page_number": 3, "page_end": 3}) == "page 3"


def test_fused_scores_read_as_a_share_of_the_best_possible():
    assert score_text({"score": 0.0328, "score_type": "rrf", "score_max": 0.0333}) == "fused 98% (rrf=0.0328)"
    assert score_text({"score": 1.5, "score_type": "dbsf", "score_max": 2.0}) == "fused 75% (dbsf=1.5000)"


def test_other_scores_say_their_kind_and_a_rerank_score_wins():
    assert score_text({"score": 0.61234, "score_type": "cosine"}) == "cosine=0.612"
    assert score_text({"score": 8.2, "score_type": "bm25"}) == "bm25=8.200"
    assert score_text({"score": 0.03, "score_type": "rrf", "score_max": 0.0333, "rerank_score": 0.9}) == "rerank=0.900"
