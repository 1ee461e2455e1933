"""The refinement loop's rules (issue 35, items 3 to 8): bounded fan-out, coverage per part, checked
max_iterations, no repeated search, "not covered" from the final answer's citations, refine decided once.
The real ChatOpenAI client talks to the OpenAI-protocol stub; the collection is real."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from ragwire import ConfigError
from ragwire.cli import main

from .refine_stub import (  # noqa: F401 - rag, script, searched and stub are fixtures
    CHAIN,
    CHARGE,
    QUESTION,
    missing,
    rag,
    retrieve_steps,
    script,
    searched,
    stub,
    sufficient,
)


# regression: 40 planned queries ran 40 retrievals
def test_a_plan_of_forty_queries_runs_at_most_max_queries_per_round_and_names_the_rest(rag, script, searched):
    queries = [CHARGE, CHARGE.upper(), CHAIN] + [f"Robot part number {n}?" for n in range(37)]
    script.plan = {"kind": "multi-part", "queries": queries}
    script.verdicts = [sufficient(*queries)]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert rag.config.generation.max_queries_per_round == 4
    assert searched == [CHARGE, CHAIN, "Robot part number 0?", "Robot part number 1?"]
    (plan,) = [s for s in answer.trace if s.step == "plan"]
    assert plan.data["queries"] == searched
    assert plan.data["dropped"][0] == f"{CHARGE.upper()!r} (repeats a search)"
    assert plan.data["dropped"][1] == "'Robot part number 2?' (over the limit of 4 a round)"
    assert len(plan.data["dropped"]) == 36
    assert "(dropped: " in plan.describe()


# regression: a judge listing 30 missing parts ran 30 retrievals a round
def test_a_judge_listing_thirty_missing_parts_searches_again_only_for_the_planned_ones(rag, script, searched):
    invented = [{"part": f"Extra part {n}?", "sufficient": False, "missing": "x", "query": f"extra {n}"}
                for n in range(30)]
    script.verdicts = [{"parts": [{"part": CHARGE, "sufficient": True},
                                  {"part": CHAIN, "sufficient": False, "missing": "interval", "query": "chain oil"},
                                  *invented]},
                       sufficient(CHARGE, CHAIN)]
    answer = rag.query(QUESTION, top_k=2, refine=True)

    assert searched == [CHARGE, CHAIN, "chain oil"]
    assert answer.iterations == 2
    (warning,) = [s.data for s in answer.trace if s.step == "warning"]
    assert warning["problem"].startswith("parts not in the plan: 'Extra part 0?'")


def test_the_fan_out_cap_is_a_validated_config_key(tmp_path):
    from ragwire.config import GenerationConfig

    assert GenerationConfig().max_queries_per_round == 4
    with pytest.raises(ValueError, match="max_queries_per_round"):
        GenerationConfig(max_queries_per_round=0)
    with pytest.raises(ValueError, match="max_queries_per_round"):
        GenerationConfig(max_queries_per_round=50)


# regression: covered = len(missing) < len(queries) refused the whole question (exit 3)
def test_a_part_the_judge_calls_covered_keeps_its_quotes_when_the_judge_lists_more_parts_than_the_plan(rag, script):
    script.verdicts = [{"parts": [{"part": CHARGE, "sufficient": True},
                                  {"part": CHAIN, "sufficient": False, "missing": "interval"},
                                  {"part": "Which oil?", "sufficient": False, "missing": "oil type"}]}]
    script.answer = "A full charge takes three hours [1]."
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=1)

    assert not answer.refused
    assert answer.text == f"A full charge takes three hours [1].\n\nThe documents do not cover: '{CHAIN}'."
    assert answer.citations[0].file_name == "charging.md"


def test_a_covered_part_stays_covered_when_a_later_judgement_doubts_it(rag, script, searched):
    script.verdicts = [missing(CHAIN, "interval", "chain oil interval", CHARGE),
                       {"parts": [{"part": CHARGE, "sufficient": False, "missing": "?", "query": "charge again"},
                                  {"part": CHAIN, "sufficient": True}]}]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=5)

    # the second verdict covers the chain; the charge part was covered in round 1 and is not searched again
    assert searched == [CHARGE, CHAIN, "chain oil interval"] and answer.iterations == 2
    assert [s.data["decision"] for s in answer.trace if s.step == "judge"] == ["insufficient", "sufficient"]


# regression: max_iterations=25 ran 25 rounds and 27 LLM calls
@pytest.mark.parametrize("value", [0, 11, 25])
def test_max_iterations_outside_one_to_ten_is_a_config_error_from_the_api(rag, script, value):
    with pytest.raises(ConfigError, match=rf"max_iterations: must be a whole number from 1 to 10 .* got {value}"):
        rag.query(QUESTION, refine=True, max_iterations=value)
    assert script.calls == []


def test_max_iterations_25_on_the_command_line_is_a_usage_error(rag, script):
    result = CliRunner().invoke(main, ["query", QUESTION, "--refine", "--max-iterations", "25",
                                       "--config", str(rag.config_path)])
    assert result.exit_code == 2
    assert "25 is not in the range 1<=x<=10" in result.output
    assert script.calls == []


# regression: "E-4711 meaning" was searched 9 times with max_iterations: 10
def test_a_round_that_would_only_repeat_a_search_ends_the_loop(rag, script, searched):
    script.verdicts = [missing(CHAIN, "the interval", "E-4711 meaning", CHARGE),
                       missing(CHAIN, "the interval", "e-4711 MEANING?", CHARGE)]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=10)

    assert searched == [CHARGE, CHAIN, "E-4711 meaning"]
    assert answer.iterations == 2 and len(script.sent["judge"]) == 2
    last_judge = [s for s in answer.trace if s.step == "judge"][-1]
    assert last_judge.data["dropped"] == ["'e-4711 MEANING?' (repeats a search)"]


# regression: "…two hundred kilometres [2]. The documents do not cover: 'How often…'"
def test_a_part_the_judge_doubts_but_the_answer_cites_its_sources_for_is_not_named_as_uncovered(rag, script):
    script.verdicts = [missing(CHAIN, "the interval", "chain oiling", CHARGE)]
    answer = rag.query(QUESTION, top_k=2, refine=True, max_iterations=1)

    assert answer.iterations == 1 and not answer.refused
    assert {c.file_name for c in answer.citations} >= {"cycling.md"}
    assert "do not cover" not in answer.text


# regression: --no-refine --stream refined when generation.refine was true
def test_query_no_refine_stream_does_not_refine_when_the_config_refines(rag, script, tmp_path):
    data = yaml.safe_load(rag.config_path.read_text(encoding="utf-8"))
    data["generation"] = {"refine": True}
    config = tmp_path / "refining.yaml"
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    script.answer = "A full charge takes three hours [1]."

    result = CliRunner().invoke(main, ["query", QUESTION, "--no-refine", "--stream", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert [step for step, _ in script.calls] == ["answer"]

    script.calls.clear()
    script.verdicts = [sufficient(CHARGE, CHAIN)]
    result = CliRunner().invoke(main, ["query", QUESTION, "--stream", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert [step for step, _ in script.calls] == ["classify", "judge", "answer"]
