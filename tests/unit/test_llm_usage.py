"""LLM usage accounting: summing, pricing, the ingest and sync totals of metadata extraction, the CLI line."""

from __future__ import annotations

import pytest

from ragwire.cli.output import extraction_line
from ragwire.config import LLMPricing
from ragwire.ingest.stats import FileOutcome, IngestStats
from ragwire.providers.calls import reported_usage
from ragwire.providers.usage import Usage, add_into, merged
from ragwire.sync import SyncStats

PRICING = LLMPricing(input_per_million=0.15, output_per_million=0.60)
NOTHING = {"llm_calls": 0, "prompt_tokens": None, "completion_tokens": None, "total_tokens": None, "cost": None}


def test_a_sum_keeps_a_token_count_none_only_when_no_side_reported_one():
    both = merged(Usage(prompt_tokens=10, completion_tokens=4, llm_calls=1), Usage(llm_calls=2))
    assert (both.prompt_tokens, both.completion_tokens, both.total_tokens, both.llm_calls) == (10, 4, 14, 3)
    none = merged(Usage(llm_calls=1), Usage(llm_calls=1))
    assert (none.prompt_tokens, none.total_tokens, none.cost, none.llm_calls) == (None, None, None, 2)


def test_adding_into_a_tally_changes_it_in_place():
    tally = Usage()
    add_into(tally, Usage(prompt_tokens=10, completion_tokens=2, llm_calls=1, cost=0.5))
    add_into(tally, Usage(llm_calls=1))
    assert tally.accounting() == {"llm_calls": 2, "prompt_tokens": 10, "completion_tokens": 2,
                                  "total_tokens": 12, "cost": 0.5}


def test_the_price_comes_from_llm_pricing_and_is_none_without_it_or_without_tokens():
    usage = Usage(prompt_tokens=1200, completion_tokens=80, llm_calls=1)
    usage.price(PRICING)
    assert usage.cost == pytest.approx(0.000228)
    usage.price(None)
    assert usage.cost is None  # never a guessed price
    unreported = Usage(llm_calls=1)
    unreported.price(PRICING)
    assert unreported.cost is None


def test_a_structured_reply_is_read_through_its_raw_message():
    class Message:
        usage_metadata = {"input_tokens": 7, "output_tokens": 3}

    structured = {"raw": Message(), "parsed": {"company": "x"}, "parsing_error": None}
    assert (reported_usage(structured).prompt_tokens, reported_usage(structured).completion_tokens) == (7, 3)
    assert reported_usage({"raw": object(), "parsed": None, "parsing_error": None}).total_tokens is None


def test_ingest_stats_sum_every_prepared_files_extraction_and_carry_it_in_the_dict():
    stats = IngestStats(total=3)
    assert stats.to_dict()["metadata_usage"] == NOTHING
    stats.count_extraction(Usage(prompt_tokens=10, completion_tokens=5, llm_calls=1, cost=0.25))
    stats.count_extraction(Usage(llm_calls=2))  # a failed extraction: two attempts, no tokens
    stats.count_extraction(Usage())  # a file that needed no extraction
    assert stats.to_dict()["metadata_usage"] == {"llm_calls": 3, "prompt_tokens": 10, "completion_tokens": 5,
                                                 "total_tokens": 15, "cost": 0.25}


def test_the_spec_keys_of_the_ingest_stats_are_unchanged():
    keys = list(IngestStats(total=0).to_dict())
    assert keys == ["total", "processed", "skipped", "failed", "chunks_created", "metadata_failed", "replaced",
                    "embedded_chunks", "reused_chunks", "errors", "metadata_usage"]


def test_sync_stats_sum_extraction_usage_over_sources():
    stats = SyncStats()
    assert stats.to_dict()["metadata_usage"] == NOTHING
    add_into(stats.source("a").metadata_usage, Usage(prompt_tokens=20, completion_tokens=6, llm_calls=2, cost=0.1))
    add_into(stats.source("b").metadata_usage, Usage(prompt_tokens=10, completion_tokens=3, llm_calls=1, cost=0.05))
    stats.source("c")  # listed, nothing extracted
    out = stats.to_dict()
    assert out["metadata_usage"] == {"llm_calls": 3, "prompt_tokens": 30, "completion_tokens": 9,
                                     "total_tokens": 39, "cost": pytest.approx(0.15)}
    assert out["sources"]["a"]["metadata_usage"]["llm_calls"] == 2
    assert out["sources"]["c"]["metadata_usage"] == NOTHING


def test_a_file_outcome_starts_with_no_extraction_calls():
    assert FileOutcome("/d/a.md", "skipped").metadata_usage.accounting() == NOTHING


def test_the_cli_line_names_calls_tokens_and_cost_and_is_absent_without_calls():
    assert extraction_line(NOTHING) is None
    assert extraction_line(None) is None
    priced = {"llm_calls": 3, "prompt_tokens": 90, "completion_tokens": 30, "total_tokens": 120, "cost": 0.000031}
    assert extraction_line(priced) == ("metadata extraction: 3 LLM calls, 120 tokens (90 prompt, 30 completion), "
                                       "cost 0.000031")
    unreported = {**NOTHING, "llm_calls": 1}
    assert extraction_line(unreported) == "metadata extraction: 1 LLM call, tokens not reported"
