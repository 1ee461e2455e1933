"""ragwire.eval.metrics: every metric checked against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from ragwire.eval import (
    MISS,
    hit_rate_at_k,
    mean_metrics,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    score_query,
)


def _log2(rank: int) -> float:
    return 1 / math.log2(rank + 1)


# -- recall -------------------------------------------------------------------------------------


def test_recall_is_the_share_of_expected_ids_found():
    assert recall_at_k(["a", MISS, "b"], {"a", "b", "c", "d"}) == 0.5


def test_recall_counts_only_results_within_k():
    assert recall_at_k([MISS, "a", "b"], {"a", "b"}, k=2) == 0.5
    assert recall_at_k([MISS, "a", "b"], {"a", "b"}, k=3) == 1.0


def test_duplicate_hits_do_not_inflate_recall():
    assert recall_at_k(["a", "a", "a"], {"a", "b"}) == 0.5


def test_recall_with_k_past_the_end_uses_what_was_returned():
    assert recall_at_k(["a"], {"a"}, k=10) == 1.0


# -- precision ----------------------------------------------------------------------------------


def test_precision_is_the_share_of_returned_results_that_are_correct():
    assert precision_at_k(["a", MISS, "b", MISS], {"a", "b"}) == 0.5


def test_precision_counts_each_chunk_of_a_right_document():
    # three of four chunks come from the expected file: 3/4 of the context is on target
    assert precision_at_k(["a", "a", MISS, "a"], {"a"}) == 0.75


def test_precision_at_k_looks_at_the_first_k_results_only():
    assert precision_at_k(["a", MISS, MISS, "b"], {"a", "b"}, k=2) == 0.5


def test_precision_divides_by_the_results_returned_when_fewer_than_k():
    assert precision_at_k(["a", MISS], {"a"}, k=5) == 0.5


# -- hit rate and reciprocal rank -----------------------------------------------------------------


def test_hit_rate_is_one_when_anything_correct_is_found():
    assert hit_rate_at_k([MISS, MISS, "b"], {"a", "b"}) == 1.0
    assert hit_rate_at_k([MISS, MISS], {"a"}) == 0.0


def test_hit_rate_respects_k():
    assert hit_rate_at_k([MISS, MISS, "b"], {"b"}, k=2) == 0.0


def test_reciprocal_rank_is_one_over_the_first_correct_rank():
    assert reciprocal_rank([MISS, MISS, "b", "a"], {"a", "b"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(["a"], {"a"}) == 1.0


def test_reciprocal_rank_is_zero_when_the_first_hit_is_past_k():
    assert reciprocal_rank([MISS, MISS, "a"], {"a"}, k=2) == 0.0


# -- nDCG -------------------------------------------------------------------------------------------


def test_ndcg_is_one_for_an_ideal_ranking():
    assert ndcg_at_k(["a", "b", MISS], {"a", "b"}) == pytest.approx(1.0)


def test_ndcg_discounts_a_late_hit_by_log2_of_its_rank():
    # one expected id found at rank 3: DCG = 1/log2(4) = 0.5, ideal = 1/log2(2) = 1
    assert ndcg_at_k([MISS, MISS, "a"], {"a"}) == pytest.approx(0.5)


def test_ndcg_ideal_counts_at_most_k_expected_ids():
    # two of three expected found at ranks 1 and 2 with k=2: the ideal fits two hits, so 1.0
    assert ndcg_at_k(["a", "b", MISS], {"a", "b", "c"}, k=2) == pytest.approx(1.0)
    # without a cutoff the ideal holds all three
    expected = (_log2(1) + _log2(2)) / (_log2(1) + _log2(2) + _log2(3))
    assert ndcg_at_k(["a", "b", MISS], {"a", "b", "c"}) == pytest.approx(expected)


def test_duplicate_hits_do_not_inflate_ndcg():
    # a, a, b: the repeat at rank 2 gains nothing; b at rank 3 gains 1/log2(4)
    expected = (_log2(1) + _log2(3)) / (_log2(1) + _log2(2))
    assert ndcg_at_k(["a", "a", "b"], {"a", "b"}) == pytest.approx(expected)
    assert ndcg_at_k(["a", "a", "a"], {"a", "b"}) == pytest.approx(_log2(1) / (_log2(1) + _log2(2)))


def test_ndcg_respects_k():
    assert ndcg_at_k([MISS, MISS, "a"], {"a"}, k=2) == 0.0


# -- edge cases ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", [recall_at_k, precision_at_k, hit_rate_at_k, reciprocal_rank, ndcg_at_k])
def test_no_expected_ids_scores_zero_without_crashing(metric):
    assert metric(["a", MISS], set()) == 0.0
    assert metric([], []) == 0.0


@pytest.mark.parametrize("metric", [recall_at_k, precision_at_k, hit_rate_at_k, reciprocal_rank, ndcg_at_k])
def test_nothing_retrieved_scores_zero(metric):
    assert metric([], {"a"}) == 0.0
    assert metric([], {"a"}, k=3) == 0.0


@pytest.mark.parametrize("metric", [recall_at_k, precision_at_k, hit_rate_at_k, reciprocal_rank, ndcg_at_k])
def test_a_k_below_one_is_refused(metric):
    with pytest.raises(ValueError, match="k must be at least 1"):
        metric(["a"], {"a"}, k=0)


def test_a_miss_marker_in_expected_never_counts_as_a_hit():
    assert recall_at_k([MISS], {MISS}) == 0.0


def test_expected_may_be_a_list_with_repeats():
    assert recall_at_k(["a"], ["a", "a", "b"]) == 0.5


# -- score_query and mean_metrics --------------------------------------------------------------------


def test_score_query_gives_every_metric():
    scores = score_query([MISS, "a", "a", MISS], ["a", "b"], k=4)
    assert scores == pytest.approx({
        "recall": 0.5,
        "mrr": 0.5,
        "hit_rate": 1.0,
        "precision": 0.5,
        "ndcg": _log2(2) / (_log2(1) + _log2(2)),
    })


def test_mean_metrics_averages_each_key():
    rows = [{"recall": 1.0, "mrr": 0.5}, {"recall": 0.0, "mrr": 1.0}, {"recall": 0.5, "mrr": 0.0}]
    assert mean_metrics(rows) == pytest.approx({"recall": 0.5, "mrr": 0.5})


def test_mean_metrics_of_nothing_is_zeros():
    assert mean_metrics([]) == {"recall": 0.0, "mrr": 0.0, "hit_rate": 0.0, "precision": 0.0, "ndcg": 0.0}


def test_mean_metrics_averages_a_key_over_the_rows_that_have_it():
    assert mean_metrics([{"recall": 1.0}, {"recall": 0.0, "ndcg": 0.5}]) == {"recall": 0.5, "ndcg": 0.5}
