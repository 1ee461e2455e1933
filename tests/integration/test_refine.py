"""Refined answers with an LLM: the real ChatOpenAI client against the OpenAI-protocol stub, a real collection.

The stub answers by the system prompt it is sent: the classify prompt gets a plan,
the judge prompt the next scripted verdict, the answer prompt a cited reply.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from ragwire.answer.prompt import DEFAULT_SYSTEM_PROMPT
from ragwire.answer.refine_llm import CLASSIFY_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT

from .refine_stub import (  # noqa: F401 - rag, script, searched and stub are fixtures
    ANSWER,
    CHAIN,
    CHARGE,
    PRICING,
    QUESTION,
    missing,
    rag,
    retrieve_steps,
    script,
    searched,
    stub,
    sufficient,
)


def test_a_multi_part_question_retrieves_once_per_part_and_answers_from_both(rag, script, searched):
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert searched == [CHARGE, CHAIN]
    assert retrieve_steps(answer) == [(1, CHARGE), (1, CHAIN)]
    assert [s.step for s in answer.trace] == ["classify", "plan", "retrieve", "retrieve", "judge", "answer"]
    assert answer.iterations == 1 and not answer.refused
    # the judge and the answer saw the chunks found for each part
    judged = script.sent["judge"][0]["messages"][-1]["content"]
    assert 'from="charging.md' in judged and 'from="cycling.md' in judged
    assert {"charging.md", "cycling.md"} <= {c.file_name for c in answer.citations}


def test_judge_insufficient_twice_then_sufficient_gives_three_iterations_and_stops(rag, script, searched):
    script.verdicts = [missing(CHAIN, "how often", "chain oil interval", CHARGE),
                       missing(CHAIN, "the interval", "oil the chain kilometres", CHARGE),
                       sufficient(CHARGE, CHAIN)]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=5)

    assert answer.iterations == 3
    assert len(script.sent["judge"]) == 3 and len(script.sent["answer"]) == 1
    assert retrieve_steps(answer) == [(1, CHARGE), (1, CHAIN), (2, "chain oil interval"),
                                      (3, "oil the chain kilometres")]
    assert searched[2:] == ["chain oil interval", "oil the chain kilometres"]
    judges = [s for s in answer.trace if s.step == "judge"]
    assert [j.data["decision"] for j in judges] == ["insufficient", "insufficient", "sufficient"]
    assert judges[0].data["missing"] == [f"{CHAIN}: how often"]
    assert not answer.refused


def test_a_judge_that_never_finds_enough_stops_at_max_iterations_and_names_the_uncovered_part(rag, script):
    script.verdicts = [missing(CHAIN, "any oiling interval", "chain oiling", CHARGE)]
    script.answer = "A full charge takes three hours [1]."  # nothing cited for the chain
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=2)

    assert answer.iterations == 2 and len(script.sent["judge"]) == 2
    # the covered part is answered, the uncovered one named
    assert not answer.refused
    assert answer.text.endswith(f"The documents do not cover: '{CHAIN}'.")
    assert answer.trace[-2].step == "judge" and answer.trace[-2].data["decision"] == "insufficient"


def test_when_no_part_is_covered_the_answer_is_a_refusal_naming_each_part_without_an_answer_call(rag, script):
    script.verdicts = [{"parts": [{"part": CHARGE, "sufficient": False, "missing": "charge time"},
                                  {"part": CHAIN, "sufficient": False, "missing": "oiling interval"}]}]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=3)

    # round 2 searches what is missing; round 3 would only repeat those searches, so it never runs
    assert answer.refused and answer.iterations == 2
    assert script.sent["answer"] == []
    assert f"'{CHARGE}' (charge time)" in answer.text and f"'{CHAIN}' (oiling interval)" in answer.text
    assert answer.trace[-1].step == "refuse"


def test_a_simple_factual_question_with_refine_makes_exactly_one_llm_call(rag, script, stub):
    script.answer = "A full charge takes three hours [1]."
    answer = rag.query(CHARGE, refine=True)

    assert len(stub.requests_to("/chat/completions")) == 1
    assert answer.usage.llm_calls == 1 and answer.iterations == 1
    assert [s.step for s in answer.trace] == ["classify", "retrieve", "answer"]
    assert answer.trace[0].data == {"kind": "factual", "by": "router"}
    assert script.sent["answer"][0]["messages"][0]["content"].startswith(DEFAULT_SYSTEM_PROMPT.split("{")[0][:40])


def test_usage_sums_the_stub_token_counts_of_every_call_and_cost_follows_pricing(rag, script):
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    # the stub reports 10 prompt tokens and one completion token per word of each reply
    assert len(script.replies) == 3 == answer.usage.llm_calls
    completion = sum(len(r.split()) for r in script.replies)
    assert answer.usage.prompt_tokens == 30 and answer.usage.completion_tokens == completion
    expected = (30 * PRICING["input_per_million"] + completion * PRICING["output_per_million"]) / 1e6
    assert answer.usage.cost == pytest.approx(expected)
    out = answer.to_dict()
    assert out["usage"]["total_tokens"] == 30 + completion and out["usage"]["cost"] == pytest.approx(expected)
    assert [s["step"] for s in out["trace"]][-1] == "answer" and out["iterations"] == 1


def test_a_streamed_answer_carries_token_counts_and_asks_for_the_usage_chunk(rag, script, stub):
    script.answer = "A full charge takes three hours [1]."
    pieces = list(rag.query_stream(CHARGE))
    answer = pieces[-1]

    request = stub.requests_to("/chat/completions")[-1].body
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert answer.usage.prompt_tokens == 10 and answer.usage.completion_tokens == len(script.answer.split())
    assert answer.usage.cost is not None and answer.usage.llm_calls == 1
    assert re.fullmatch(r"[0-9a-f]{32}", answer.trace_id)


def test_callbacks_see_every_llm_call_of_a_refined_query(rag, script):
    class Counting(BaseCallbackHandler):
        def __init__(self) -> None:
            self.starts: list[str] = []

        def on_chat_model_start(self, serialized, messages, **kwargs) -> None:
            self.starts.append(messages[0][0].content)

    configured, per_query = Counting(), Counting()
    rag.callbacks = [configured]
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    rag.query(QUESTION, top_k=2, refine=True, callbacks=[per_query])

    for handler in (configured, per_query):
        assert handler.starts[:2] == [CLASSIFY_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT] and len(handler.starts) == 3


def test_aquery_refines_like_query(rag, script):
    script.verdicts = [missing(CHAIN, "interval", "chain oil interval", CHARGE), sufficient(CHARGE, CHAIN)]
    answer = asyncio.run(rag.aquery(QUESTION, top_k=2, refine=True))

    assert answer.iterations == 2 and answer.usage.llm_calls == 4
    assert retrieve_steps(answer)[-1] == (2, "chain oil interval")


def test_an_out_of_scope_question_is_refused_after_the_classify_call_without_retrieval(rag, script, searched):
    script.plan = {"kind": "out-of-scope", "queries": []}
    answer = rag.query("Compare the weather in Paris and Rome today", refine=True)

    assert answer.refused and searched == [] and answer.usage.llm_calls == 1
    assert [s.step for s in answer.trace] == ["classify", "refuse"]
