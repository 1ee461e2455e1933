"""ragwire.eval and `ragwire eval` over examples/docs, with the packaged MiniLM model and the embedded engine.

One store is ingested for the module; every test only reads it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main
from ragwire.eval import MISS, GoldenSet, evaluate, sweep

from ..conftest import REPO
from .helpers import write_config

EXAMPLE_QUERIES = yaml.safe_load((REPO / "golden.example.yaml").read_text(encoding="utf-8"))["queries"]
# a filter on a field no chunk has: retrieve() and query() both raise ConfigError
BAD_FILTER = {"query": "What does error E-4711 mean?", "expected": ["troubleshooting.txt"],
              "filters": {"no_such_field": "x"}}
UNANSWERABLE = {"query": "What will the weather be like in Paris tomorrow?", "answerable": False}


@pytest.fixture(scope="module")
def store(tmp_path_factory, examples_store) -> Path:
    """config.yaml of the module's copy of the examples/docs store."""
    stats = examples_store.stats
    assert stats["failed"] == 0 and stats["processed"] == 7
    return examples_store.copy(tmp_path_factory.mktemp("eval"))


@pytest.fixture(scope="module")
def rag(store) -> RAGWire:
    return RAGWire(store)


def _golden(*extra: dict) -> GoldenSet:
    return GoldenSet.from_data({"queries": [*EXAMPLE_QUERIES, *extra]})


# -- evaluate ------------------------------------------------------------------------------------


def test_the_example_golden_set_is_retrieved_in_full(rag):
    result = evaluate(rag, _golden(), top_k=5)

    assert result.metrics["recall"] == 1.0 and result.metrics["hit_rate"] == 1.0
    assert set(result.metrics) == {"recall", "mrr", "hit_rate", "precision", "ndcg"}
    assert result.failures == [] and result.errors == []
    first = result.per_query[0]
    assert first.query == "What does error E-4711 mean?" and first.expected == ["troubleshooting.txt"]
    assert len(first.retrieved) == 5 and set(first.retrieved) <= {"troubleshooting.txt", MISS}
    assert first.missed == [] and first.latency_s > 0
    assert all(Path(s).is_absolute() for s in first.sources)


def test_a_document_never_retrieved_is_a_failure_with_what_came_instead(rag):
    # a stored document the question does not find (one that is not stored at all is another matter, below)
    golden = GoldenSet.from_data([{"query": "What does error E-4711 mean?", "expected": ["warranty-policy.pdf"]}])
    result = evaluate(rag, golden, top_k=3)

    [query] = result.failures
    assert query.retrieved == [MISS] * 3 and query.missed == ["warranty-policy.pdf"]
    assert query.metrics == {"recall": 0.0, "mrr": 0.0, "hit_rate": 0.0, "precision": 0.0, "ndcg": 0.0}
    assert result.absent_expected == []
    table = result.to_table()
    assert "failures (1, nothing expected retrieved):" in table
    assert "expected warranty-policy.pdf; got " in table and "troubleshooting.txt" in table


def test_a_query_that_raises_scores_zero_and_the_run_continues(rag, caplog):
    bad = BAD_FILTER
    golden = GoldenSet.from_data([bad, EXAMPLE_QUERIES[2]])
    with caplog.at_level(logging.WARNING, logger="ragwire.eval"):
        result = evaluate(rag, golden)

    broken, fine = result.per_query
    assert broken.error is not None and "no_such_field" in broken.error
    assert broken.retrieved == [] and broken.metrics["recall"] == 0.0
    assert fine.error is None and fine.metrics["hit_rate"] == 1.0
    assert result.metrics["hit_rate"] == 0.5
    assert result.errors == [broken] and broken in result.failures
    assert any(r.name == "ragwire.eval" and "golden query 1" in r.getMessage() for r in caplog.records)
    assert "errors (1, scored zero):" in result.to_table()


def test_an_entry_filter_is_merged_into_the_run_filters(rag):
    golden = GoldenSet.from_data([{"query": "How much does part SKU-88213-B cost?", "expected": ["price-list.xlsx"],
                                   "filters": {"file_type": "xlsx"}}])
    result = evaluate(rag, golden, filters={"file_name": "price-list.xlsx"})

    [query] = result.per_query
    assert query.error is None and query.retrieved and set(query.retrieved) == {"price-list.xlsx"}
    assert query.metrics["precision"] == 1.0


def test_unanswerable_entries_are_left_out_of_retrieval_scores(rag):
    result = evaluate(rag, _golden(UNANSWERABLE))

    assert len(result.per_query) == 6 and result.metrics["recall"] == 1.0
    assert result.failures == []
    assert "(1 unanswerable, not in retrieval scores)" in result.to_table()


def test_to_dict_is_json_and_holds_every_query(rag):
    data = json.loads(json.dumps(evaluate(rag, _golden(), top_k=2, label="k2").to_dict()))

    assert data["label"] == "k2" and data["top_k"] == 2 and data["queries"] == 5
    assert len(data["per_query"]) == 5 and len(data["per_query"][0]["retrieved"]) == 2
    assert data["latency_p50_s"] > 0


# -- answers ------------------------------------------------------------------------------------------


def test_answers_score_refusals_citations_and_confidence_with_the_extractive_answerer(rag):
    result = evaluate(rag, _golden(UNANSWERABLE), answers=True)

    metrics = dict(result.answer_metrics)
    # extractive confidence is calibrated (issue 33): a share of answers right, not the share of cited sentences
    assert 0.5 <= metrics.pop("mean_confidence") <= 1.0
    assert metrics == {"refusal_recall": 1.0, "false_refusal_rate": 0.0, "answered_cited_rate": 1.0,
                       "citation_hit_rate": 1.0, "refusal_accuracy_combined": 1.0}
    weather = result.per_query[-1].answer
    assert weather.refused and weather.refusal_correct and weather.cited == []
    assert "refusal_recall" in result.to_table()


def test_a_failing_answer_counts_as_wrong(rag):
    bad = BAD_FILTER
    golden = GoldenSet.from_data([bad, EXAMPLE_QUERIES[2], UNANSWERABLE])
    result = evaluate(rag, golden, answers=True)

    assert result.per_query[0].answer.error is not None and not result.per_query[0].answer.refusal_correct
    assert result.answer_metrics["refusal_accuracy_combined"] == pytest.approx(2 / 3)
    assert result.answer_metrics["citation_hit_rate"] == 1.0  # only the answered answerable entry counts


# -- sweep -----------------------------------------------------------------------------------------------


def test_sweep_compares_variants_against_the_first(rag):
    result = sweep(rag, _golden(), {
        "hybrid": {},
        "keyword top 1": {"search_type": "keyword", "top_k": 1},
    })

    assert list(result.results) == ["hybrid", "keyword top 1"]
    assert result.results["keyword top 1"].top_k == 1 and result.results["hybrid"].top_k == 5
    assert result.results["keyword top 1"].settings == {"search_type": "keyword"}
    assert result.best in result.results
    table = result.to_table()
    assert table.splitlines()[0].split() == ["metric", "hybrid", "keyword", "top", "1"]
    assert table.splitlines()[-1] == f"best: {result.best} (highest ndcg, then mrr)"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["baseline"] == "hybrid" and set(data["results"]) == {"hybrid", "keyword top 1"}


def test_the_baseline_stays_best_on_a_tie(rag):
    result = sweep(rag, _golden(), {"a": {}, "b": {}})
    assert result.best == "a"


# -- the CLI --------------------------------------------------------------------------------------------------


def _write_golden(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "golden.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_cli_prints_the_table(store, tmp_path):
    golden = _write_golden(tmp_path, {"queries": EXAMPLE_QUERIES})
    result = CliRunner().invoke(main, ["eval", str(golden), "--config", str(store), "-k", "3"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{golden}: 5 queries, top_k=3"
    assert lines[1].split() == ["recall", "1.000"]


def test_cli_json_parses_and_low_scores_still_exit_zero(store, tmp_path):
    golden = _write_golden(tmp_path, [{"query": "What does error E-4711 mean?", "expected": "warranty-policy.pdf"}])
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store), "--json", "--search-type", "keyword"])

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["metrics"]["recall"] == 0.0 and data["failures"] == 1
    assert data["settings"] == {"search_type": "keyword"}


def test_cli_answers_adds_answer_scores(store, tmp_path):
    golden = _write_golden(tmp_path, [EXAMPLE_QUERIES[0], UNANSWERABLE])
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store), "--answers"])

    assert result.exit_code == 0, result.output
    assert any(line.split() == ["refusal_recall", "1.000"] for line in result.stdout.splitlines())


def test_cli_bad_golden_file_is_one_line_naming_the_entry(store, tmp_path):
    golden = _write_golden(tmp_path, [{"query": "a", "expected": "x.md"}, {"query": "b", "expectd": "y.md"}])
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store)])

    assert result.exit_code == 1
    assert result.stderr == f"error: {golden}: entry 2: expectd: unknown key (did you mean 'expected'?)\n"


def test_cli_missing_golden_file_is_one_line(store, tmp_path):
    result = CliRunner().invoke(main, ["eval", str(tmp_path / "nope.yaml"), "-c", str(store)])

    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'nope.yaml'}: golden set not found\n"


def test_cli_compare_rerank_without_a_reranker_says_what_to_add(store, tmp_path):
    golden = _write_golden(tmp_path, {"queries": EXAMPLE_QUERIES})
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store), "--compare-rerank"])

    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "--compare-rerank needs a reranker: add a retriever.rerank block" in result.stderr


def test_cli_compare_rerank_prints_both_runs_side_by_side(store, tmp_path):
    from tests.stubs import StubServer

    golden = _write_golden(tmp_path, {"queries": EXAMPLE_QUERIES})
    with StubServer() as stub:
        rerank = {"provider": "cohere", "api_key": "test-key", "base_url": stub.url}
        config = write_config(tmp_path / "reranked", vectorstore={"path": str(store.parent / "store")},
                              retriever={"rerank": rerank})
        result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(config), "--compare-rerank"])
        as_json = CliRunner().invoke(main, ["eval", str(golden), "-c", str(config), "--compare-rerank", "--json"])
        reranked_calls = len(stub.requests_to("/v2/rerank"))

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["metric", "no", "rerank", "reranked"]
    assert lines[-1].startswith("best: ")
    data = json.loads(as_json.stdout)
    assert data["baseline"] == "no rerank"
    assert data["results"]["reranked"]["settings"] == {"rerank": True}
    assert reranked_calls == 2 * len(EXAMPLE_QUERIES)  # only the reranked runs called the reranker


# -- runs that cannot be scored ------------------------------------------------------

def test_cli_eval_with_none_of_the_expected_files_in_the_collection_exits_2_naming_them(store, tmp_path):
    # guards issue 19.11: a golden set for other documents scored zeros and exited 0
    golden = _write_golden(tmp_path, [{"query": "What does error E-4711 mean?", "expected": "nonexistent.pdf"},
                                      {"query": "How long is the warranty?", "expected": ["other/missing.docx"]}])
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store), "--json"])

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr == ("error: none of the 2 expected documents is in the collection (match_field source, "
                             "match_mode basename): nonexistent.pdf, other/missing.docx; ingest them, or fix the "
                             "golden set\n")


def test_eval_with_some_expected_files_absent_warns_and_counts_them(rag, store, tmp_path, caplog):
    # guards issue 19.11: absent expected documents were indistinguishable from ones search missed
    queries = [EXAMPLE_QUERIES[0], {"query": "How long is the warranty?", "expected": ["nonexistent.pdf"]}]
    with caplog.at_level(logging.WARNING, logger="ragwire.eval"):
        result = evaluate(rag, GoldenSet.from_data(queries), top_k=3)
    assert result.absent_expected == ["nonexistent.pdf"]
    assert "1 of 2 expected documents are not in the collection" in caplog.text and "nonexistent.pdf" in caplog.text
    assert "not in the collection (1 expected document, scored as misses): nonexistent.pdf" in result.to_table()

    cli = CliRunner().invoke(main, ["eval", str(_write_golden(tmp_path, queries)), "-c", str(store), "--json"])
    assert cli.exit_code == 0, cli.output
    data = json.loads(cli.stdout)
    assert data["absent_expected"] == ["nonexistent.pdf"] and data["absent_expected_count"] == 1


def test_cli_eval_with_a_match_field_no_chunk_has_exits_2(store, tmp_path):
    # guards issue 19.11: every result was a miss, scored as zeros with exit 0
    golden = _write_golden(tmp_path, {"match_field": "sourcee", "queries": EXAMPLE_QUERIES[:2]})
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(store)])

    assert result.exit_code == 2, result.output
    assert result.stderr == ("error: match_field 'sourcee': no stored chunk has this field, so every result "
                             "would be a miss (did you mean 'source'?)\n")


def test_cli_eval_on_an_empty_collection_exits_2(tmp_path):
    # guards issue 19.11: an empty collection scored zeros with exit 0
    config = write_config(tmp_path / "empty")
    golden = _write_golden(tmp_path, {"queries": EXAMPLE_QUERIES[:2]})
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(config)])

    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: collection 'test_docs' is empty: there is nothing to score")


def test_cli_eval_answers_with_every_llm_call_failing_counts_them_and_exits_1(store, tmp_path):
    # guards issue 19.11: every query() failed, yet the table said "errors 0" and the exit code was 0
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    config = write_config(tmp_path / "llm-down", vectorstore={"path": str(store.parent / "store")},
                          llm={"provider": "openai", "model": "m", "base_url": url, "api_key": "k", "timeout": 2},
                          ingestion={"retries": 0})
    golden = _write_golden(tmp_path, [EXAMPLE_QUERIES[0], EXAMPLE_QUERIES[1]])
    result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(config), "--answers"])

    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert any(line.split() == ["errors", "0"] for line in lines)  # retrieval worked
    assert any(line.split() == ["answer", "errors", "2"] for line in lines)
    assert "answer errors (2, counted as wrong answers):" in result.stdout
    assert result.stderr.splitlines()[-1].startswith(
        "error: --answers: no answer could be produced, all 2 query() calls failed (first: ProviderError: ")


def test_cli_eval_answers_reports_llm_calls_tokens_and_cost_over_the_run(store, tmp_path):
    from tests.stubs import StubServer

    with StubServer(chat_reply="The warranty lasts 24 months [1].") as stub:
        config = write_config(tmp_path / "priced", vectorstore={"path": str(store.parent / "store")},
                              llm={"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url,
                                   "api_key": "k", "pricing": {"input_per_million": 1.0, "output_per_million": 2.0}})
        golden = _write_golden(tmp_path, [EXAMPLE_QUERIES[0], EXAMPLE_QUERIES[1]])
        result = CliRunner().invoke(main, ["eval", str(golden), "-c", str(config), "--answers", "--json"])
        calls = len(stub.requests_to("/chat/completions"))

    assert result.exit_code == 0, result.output
    usage = json.loads(result.stdout)["answer_usage"]
    # the stub reports 10 prompt tokens and one completion token per word (6 words) per call
    assert usage["llm_calls"] == calls == 2
    assert usage["prompt_tokens"] == 20 and usage["completion_tokens"] == 12 and usage["total_tokens"] == 32
    assert usage["cost"] == pytest.approx((20 * 1.0 + 12 * 2.0) / 1e6)
