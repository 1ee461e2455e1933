"""Refinement without an LLM (extractive mode): per-part search, coverage of each part's terms, re-query, cite or name the gap.

A real collection (packaged MiniLM, embedded engine) of short everyday topics; the CLI runs in-process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import EXIT_REFUSED, main

from .helpers import write_config, write_topics

TWO_PARTS = "How long does a full charge take, and how often should I oil the bike chain?"


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("refine-offline")
    path = write_config(root)
    rag = RAGWire(path)
    assert rag.ingest_documents([str(p) for p in write_topics(root / "docs")])["processed"] == 10
    rag.close()
    return path


@pytest.fixture(scope="module")
def rag(config) -> Iterator[RAGWire]:
    rag = RAGWire(config)
    with rag:
        yield rag


def test_each_part_is_searched_on_its_own_and_cited_from_its_own_file(rag):
    single = rag.query(TWO_PARTS, top_k=2)
    refined = rag.query(TWO_PARTS, top_k=2, refine=True)

    plan = next(s for s in refined.trace if s.step == "plan")
    assert plan.data["queries"] == ["How long does a full charge take?",
                                    "How often should I oil the bike chain?"]
    assert [s.data["query"] for s in refined.trace if s.step == "retrieve"] == plan.data["queries"]
    assert {"charging.md", "cycling.md"} <= {c.file_name for c in refined.citations}
    assert "three hours" in refined.text and "two hundred kilometres" in refined.text
    # single-shot answers each part from its own quotes of the one search's chunks (issue 33)
    assert "How long does a full charge take?" in single.text and "How often should I oil the bike chain?" in single.text


def test_a_streamed_refined_answer_is_the_refined_answer_in_one_piece(rag):
    refined = rag.query(TWO_PARTS, top_k=2, refine=True)
    *pieces, streamed = rag.query_stream(TWO_PARTS, top_k=2, refine=True)
    assert pieces == [refined.text] and streamed.text == refined.text
    assert [s.step for s in streamed.trace] == [s.step for s in refined.trace] and streamed.iterations >= 1


def test_a_part_the_documents_do_not_cover_is_re_queried_once_with_its_missing_term_then_named(rag):
    answer = rag.query("How long does a full charge take, and what is the capital city of Peru?",
                       top_k=2, refine=True, max_iterations=3)

    assert not answer.refused
    assert "three hours" in answer.text
    assert answer.text.endswith("What is the capital city of Peru?\nThe documents do not cover this part.")
    judges = [s for s in answer.trace if s.step == "judge"]
    assert judges[0].data["decision"] == "insufficient" and "Peru" in judges[0].data["missing"][0]
    requery = [s for s in answer.trace if s.step == "retrieve" and s.iteration == 2]
    assert len(requery) == 1 and "peru" in requery[0].data["query"].lower()
    # the same uncovered term would be searched again in a third round: it stops at two
    assert answer.iterations == 2 == max(s.iteration for s in answer.trace)


def test_when_no_part_is_covered_the_answer_is_a_refusal_naming_the_parts(rag):
    answer = rag.query("What is the capital city of Peru, and who painted the Mona Lisa?", top_k=2, refine=True,
                       max_iterations=2)

    assert answer.refused and answer.iterations <= 2
    assert "'What is the capital city of Peru?'" in answer.text and "'Who painted the Mona Lisa?'" in answer.text
    assert answer.trace[-1].step == "refuse"


def test_a_one_part_question_stays_single_shot_and_gets_the_same_answer(rag):
    plain = rag.query("How long does a full charge take?")
    refined = rag.query("How long does a full charge take?", refine=True)

    assert refined == plain and refined.iterations == 1
    assert [s.step for s in plain.trace] == ["retrieve", "answer"]
    assert [s.step for s in refined.trace] == ["classify", "retrieve", "answer"]
    assert plain.trace_id != refined.trace_id


def test_query_refine_trace_prints_the_steps_and_json_includes_them(config):
    shown = CliRunner().invoke(main, ["query", TWO_PARTS, "--config", str(config), "-k", "2", "--refine", "--trace"])
    assert shown.exit_code == 0, shown.output
    trace = shown.output.split("\nTrace:\n", 1)[1].splitlines()
    assert trace[0] == "[0] classify  multi-part (by router)"
    assert trace[2] == "[1] retrieve  'How long does a full charge take?' → 2 chunks"
    assert trace[-1].startswith("trace ") and trace[-1].endswith("1 iteration, 0 LLM calls, tokens unknown")

    as_json = CliRunner().invoke(main, ["query", TWO_PARTS, "--config", str(config), "-k", "2", "--refine", "--json"])
    out = json.loads(as_json.output)
    assert [s["step"] for s in out["trace"]][:2] == ["classify", "plan"]
    assert out["iterations"] == 1 and len(out["trace_id"]) == 32 and out["usage"]["llm_calls"] == 0

    refused = CliRunner().invoke(main, ["query", "What is the capital city of Peru, and who painted the Mona Lisa?",
                                        "--config", str(config), "--refine", "--max-iterations", "1"])
    assert refused.exit_code == EXIT_REFUSED


def test_a_refined_answers_confidence_is_its_least_grounded_parts_calibrated_strength(rag):
    # Round 4: it was the share of the answer's sentences with a citation (each part's heading line counted
    # as an uncited sentence), so a refined answer read 0.5 however well its parts were grounded.
    from ragwire.answer.calibration import CALIBRATION

    refined = rag.query(TWO_PARTS, top_k=2, refine=True)
    single = rag.query(TWO_PARTS, top_k=2)
    assert not refined.refused
    assert refined.confidence in {value for _, value in CALIBRATION}
    assert refined.confidence == single.confidence
