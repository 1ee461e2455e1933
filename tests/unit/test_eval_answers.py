"""Answer-level eval scores: refusals on each side reported apart, so a run that never refuses cannot look good."""

from __future__ import annotations

import pytest

from ragwire.eval.answers import ANSWER_METRIC_NAMES, AnswerOutcome, summarize_answers
from ragwire.eval.golden import GoldenSet


def _golden(answerable: int, unanswerable: int) -> GoldenSet:
    data = [{"query": f"q{i}", "expected": "a.md"} for i in range(answerable)]
    data += [{"query": f"u{i}", "answerable": False} for i in range(unanswerable)]
    return GoldenSet.from_data(data)


def _answered(cites: bool = True) -> AnswerOutcome:
    return AnswerOutcome(refused=False, confidence=1.0, cited=["a.md"], cites_expected=cites)


def _refused(correct: bool) -> AnswerOutcome:
    return AnswerOutcome(refused=True, confidence=0.0, refusal_correct=correct)


def test_a_run_that_never_refuses_scores_zero_refusal_recall_though_combined_accuracy_is_high():
    # guards issue 19 item 11: refusal_accuracy read 0.925 on examples_docs.yaml with no unanswerable refused
    golden = _golden(86, 7)
    outcomes = [AnswerOutcome(refused=False, confidence=1.0, cites_expected=True, refusal_correct=True)] * 86
    outcomes += [AnswerOutcome(refused=False, confidence=1.0, refusal_correct=False)] * 7

    scores = summarize_answers(golden.entries, outcomes)

    assert scores["refusal_recall"] == 0.0
    assert scores["false_refusal_rate"] == 0.0
    assert scores["refusal_accuracy_combined"] == pytest.approx(86 / 93)
    assert "refusal_accuracy" not in scores  # the combined figure is only shown labelled as combined


def test_false_refusals_and_answers_citing_an_expected_file_are_shares_of_all_answerable_entries():
    golden = _golden(4, 2)
    outcomes = [_answered(), _answered(cites=False), _refused(correct=False),
                AnswerOutcome(refused=False, confidence=0.0, error="ProviderError: down"),
                _refused(correct=True), _answered()]

    scores = summarize_answers(golden.entries, outcomes)

    assert scores["refusal_recall"] == 0.5
    assert scores["false_refusal_rate"] == 0.25
    assert scores["answered_cited_rate"] == 0.25  # the failed query counts against it
    assert scores["citation_hit_rate"] == 0.5  # among the two answerable entries that got an answer


def test_a_set_without_unanswerable_entries_has_no_refusal_recall():
    scores = summarize_answers(_golden(1, 0).entries, [_answered()])
    assert scores["refusal_recall"] is None and scores["answered_cited_rate"] == 1.0
    assert list(scores) == list(ANSWER_METRIC_NAMES)


def test_answer_usage_totals_sum_calls_tokens_and_cost_and_stay_none_when_nothing_was_reported():
    from ragwire.eval.answers import total_usage

    priced = [AnswerOutcome(refused=False, confidence=1.0, llm_calls=3, prompt_tokens=30, completion_tokens=12,
                            cost=0.0001),
              AnswerOutcome(refused=True, confidence=0.0, llm_calls=1, prompt_tokens=10, completion_tokens=2,
                            cost=0.00002)]
    assert total_usage(priced) == {"llm_calls": 4, "prompt_tokens": 40, "completion_tokens": 14,
                                   "total_tokens": 54, "cost": pytest.approx(0.00012)}
    offline = [AnswerOutcome(refused=False, confidence=1.0)] * 2
    assert total_usage(offline) == {"llm_calls": 0, "prompt_tokens": None, "completion_tokens": None,
                                    "total_tokens": None, "cost": None}
