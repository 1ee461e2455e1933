"""Refinement with model replies of the wrong shape (issue 35, items 1 and 2): every reply is validated, and one
that does not validate, or a call that fails, is one warning in the trace and a defined fallback, never a
traceback and never a search for junk.  The real ChatOpenAI client talks to the OpenAI-protocol stub."""

from __future__ import annotations

from click.testing import CliRunner

from ragwire.answer.refine_llm import JUDGE_SYSTEM_PROMPT
from ragwire.cli import main

from .refine_stub import (  # noqa: F401 - rag, script, searched and stub are fixtures
    CHAIN,
    CHARGE,
    QUESTION,
    rag,
    retrieve_steps,
    script,
    searched,
    stub,
    sufficient,
)


def warnings(answer) -> list[dict]:
    return [s.data for s in answer.trace if s.step == "warning"]


def assert_single_shot_after_one_classify_warning(answer, script, searched) -> str:
    """The fallback of a plan that cannot be used: one search for the question, one answer call."""
    (warning,) = warnings(answer)
    assert warning["of"] == "classify" and warning["fallback"] == "single-shot answer"
    assert searched == [QUESTION]
    assert len(script.sent["classify"]) == 1 and len(script.sent["answer"]) == 1 and not script.sent["judge"]
    assert [s.step for s in answer.trace] == ["warning", "retrieve", "answer"]
    assert not answer.refused and answer.usage.llm_calls == 2
    return warning["problem"]


# regression: {"kind": "poem", "queries": 5} raised TypeError: 'int' object is not iterable
def test_refine_falls_back_to_single_shot_when_the_classify_reply_has_the_wrong_types(rag, script, searched):
    script.plan = {"kind": "poem", "queries": 5}
    answer = rag.query(QUESTION, top_k=2, refine=True)

    problem = assert_single_shot_after_one_classify_warning(answer, script, searched)
    assert problem.startswith("kind: Input should be 'factual'")


def test_query_refine_with_a_classify_reply_of_the_wrong_type_prints_an_answer_not_a_traceback(rag, script):
    script.plan = {"kind": "poem", "queries": 5}
    result = CliRunner().invoke(main, ["query", QUESTION, "--refine", "--trace", "--config", str(rag.config_path)])

    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None
    assert "[0] warning   classify reply: kind: Input should be" in result.output
    assert result.output.rstrip().splitlines()[-4].endswith("→ single-shot answer")


# regression: a string plan ran 24 one-character searches ("W", "h", "a", …)
def test_refine_falls_back_to_single_shot_when_plan_queries_is_a_string(rag, script, searched):
    script.plan = {"kind": "multi-part", "queries": "What does error E-4711 mean?"}
    answer = rag.query(QUESTION, top_k=2, refine=True)

    problem = assert_single_shot_after_one_classify_warning(answer, script, searched)
    assert problem == "queries: Input should be a valid list"


# regression: [null, 3] searched for "None" and "3"
def test_refine_never_searches_for_null_or_a_number_in_the_plan(rag, script, searched):
    script.plan = '{"kind": "multi-part", "queries": [null, 3]}'
    answer = rag.query(QUESTION, top_k=2, refine=True)

    problem = assert_single_shot_after_one_classify_warning(answer, script, searched)
    assert problem.startswith("queries.0: Input should be a valid string")


def test_refine_falls_back_to_single_shot_when_the_plan_has_no_queries_key(rag, script, searched):
    script.plan = {"kind": "multi-part"}
    answer = rag.query(QUESTION, top_k=2, refine=True)

    problem = assert_single_shot_after_one_classify_warning(answer, script, searched)
    assert "no query for a question that must be searched" in problem


def test_refine_falls_back_to_single_shot_when_the_classify_reply_is_not_json(rag, script, searched):
    script.plan = "Sure! I would search for the charge time and then for the chain."
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert assert_single_shot_after_one_classify_warning(answer, script, searched) == "no JSON object in the reply"


def test_a_classify_call_that_times_out_falls_back_to_single_shot(rag, script, searched, monkeypatch):
    monkeypatch.setattr(rag.answerer, "retries", 0)
    script.delay["classify"] = 5.0  # the llm section's timeout is 3 s
    answer = rag.query(QUESTION, top_k=2, refine=True)

    problem = assert_single_shot_after_one_classify_warning(answer, script, searched)
    assert "LLM classify" in problem and "tim" in problem.lower()


def test_a_judge_reply_of_the_wrong_type_answers_from_the_chunks_found_so_far(rag, script, searched):
    script.verdicts = [{"parts": [{"part": CHARGE, "sufficient": "yes"}, {"part": CHAIN, "sufficient": "no"}]}]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=3)

    (warning,) = warnings(answer)
    assert warning == {"of": "judge", "problem": "parts.0.sufficient: Input should be a valid boolean (and 1 more)",
                       "fallback": "answer from the chunks found so far"}
    assert searched == [CHARGE, CHAIN] and answer.iterations == 1
    assert [s.step for s in answer.trace] == ["classify", "plan", "retrieve", "retrieve", "warning", "answer"]
    assert not answer.refused and len(script.sent["answer"]) == 1


def test_a_judge_reply_that_is_not_json_answers_from_the_chunks_found_so_far(rag, script):
    script.verdicts = ["Both parts look fine to me."]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert warnings(answer) == [{"of": "judge", "problem": "no JSON object in the reply",
                                 "fallback": "answer from the chunks found so far"}]
    assert not answer.refused and answer.usage.llm_calls == 3


def test_a_judge_call_answered_with_http_500_answers_from_the_chunks_found_so_far(rag, script, stub, monkeypatch):
    monkeypatch.setattr(rag.answerer, "retries", 0)
    stub.script_failures([500], marker=JUDGE_SYSTEM_PROMPT[:40])
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    (warning,) = warnings(answer)
    assert warning["of"] == "judge" and "500" in warning["problem"]
    assert not answer.refused
    # the failed request is counted: classify, the judge's one attempt, the answer
    assert answer.usage.llm_calls == 3 == len(stub.requests_to("/chat/completions"))


def test_a_judge_that_names_parts_not_in_the_plan_is_read_for_the_planned_parts_only(rag, script, searched):
    extra = "What colour is the robot?"
    script.verdicts = [{"parts": [{"part": CHARGE, "sufficient": True},
                                  {"part": CHAIN, "sufficient": True},
                                  {"part": extra, "sufficient": False, "missing": "colour", "query": "robot colour"}]}]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert warnings(answer) == [{"of": "judge", "problem": f"parts not in the plan: {extra!r}", "fallback": "ignored"}]
    assert searched == [CHARGE, CHAIN] and retrieve_steps(answer)[-1] == (1, CHAIN)
    assert not answer.refused and "do not cover" not in answer.text


def test_a_plan_whose_queries_have_no_words_falls_back_to_single_shot(rag, script, searched):
    script.plan = {"kind": "multi-part", "queries": ["?", " !! "]}
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert searched == [QUESTION] and not answer.refused
    assert [s.step for s in answer.trace] == ["classify", "plan", "warning", "retrieve", "answer"]
    assert answer.trace[1].data["dropped"] == ["'?' (no words)", "'!!' (no words)"]
    assert warnings(answer)[0]["fallback"] == "single-shot answer"
