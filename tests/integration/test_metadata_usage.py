"""What LLM metadata extraction costs, in the ingest and sync stats and on the CLI: the real ChatOpenAI
client against the OpenAI-protocol stub (which reports 10 prompt tokens and one completion token per
reply word), the embedded engine, and the stub's embeddings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragwire import RAGWire
from ragwire.cli import main
from tests.stubs import StubServer

from .helpers import COMPANY_YEAR_SCHEMA, write_config

SCHEMA = COMPANY_YEAR_SCHEMA

DOCS = {
    "apple.md": "# Apple results\n\nApple Inc. reported record services revenue in fiscal 2024.",
    "microsoft.md": "# Microsoft annual report\n\nMicrosoft Corporation grew cloud revenue in fiscal 2023.",
    "notes.md": "# Notes\n\nMinutes of a meeting about the office move; no company named.",
}

PRICING = {"input_per_million": 0.15, "output_per_million": 0.60}


def reply(body: dict) -> str:
    text = str(body["messages"][-1].get("content", ""))
    company = "Apple Inc." if "Apple Inc." in text else "Microsoft Corporation" if "Microsoft" in text else None
    return json.dumps({"company": company, "year": 2024 if "2024" in text else None})


def stub_tokens(stub: StubServer) -> tuple[int, int, int]:
    """(calls, prompt tokens, completion tokens) the stub reported over its successful chat replies."""
    answered = [r for r in stub.requests_to("/chat/completions") if r.status == 200]
    return len(answered), 10 * len(answered), sum(len(reply(r.body).split()) for r in answered)


@pytest.fixture
def stub():
    with StubServer(dim=16, chat_reply=reply) as server:
        yield server


def setup(root: Path, stub: StubServer, *, pricing: dict | None = PRICING, retries: int = 0,
          sources: list[dict] | None = None) -> Path:
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (root / "metadata.yaml").write_text(SCHEMA, encoding="utf-8")
    llm = {"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "k", "timeout": 5}
    if pricing is not None:
        llm["pricing"] = pricing
    extra = {"sources": sources} if sources is not None else {}
    return write_config(
        root,
        embeddings={"provider": "openai", "model": "stub-embed", "base_url": stub.openai_url, "api_key": "k"},
        llm=llm,
        metadata={"config_file": str(root / "metadata.yaml")},
        ingestion={"retries": retries, "retry_backoff": 0.01, "workers": 2},
        **extra,
    )


def cost(prompt: int, completion: int) -> float:
    return (prompt * PRICING["input_per_million"] + completion * PRICING["output_per_million"]) / 1e6


def test_an_ingest_reports_the_tokens_of_every_extraction_call_and_their_cost(tmp_path, stub):
    stats = RAGWire(setup(tmp_path, stub)).ingest_directory(tmp_path / "docs")
    calls, prompt, completion = stub_tokens(stub)
    assert (stats["processed"], stats["metadata_failed"], calls) == (3, 0, 3)
    usage = stats["metadata_usage"]
    assert usage == {"llm_calls": 3, "prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": prompt + completion, "cost": pytest.approx(cost(prompt, completion))}
    assert usage["cost"] > 0


def test_without_pricing_the_tokens_are_counted_and_the_cost_is_none(tmp_path, stub):
    stats = RAGWire(setup(tmp_path, stub, pricing=None)).ingest_directory(tmp_path / "docs")
    _, prompt, completion = stub_tokens(stub)
    assert stats["metadata_usage"]["llm_calls"] == 3
    assert stats["metadata_usage"]["total_tokens"] == prompt + completion
    assert stats["metadata_usage"]["cost"] is None


def test_a_retried_extraction_counts_every_attempt_and_the_tokens_of_the_replies(tmp_path, stub):
    stub.script_failures([500], marker="You extract metadata")  # the next extraction call fails once
    stats = RAGWire(setup(tmp_path, stub, retries=1)).ingest_directory(tmp_path / "docs")
    answered, prompt, completion = stub_tokens(stub)
    assert (stats["metadata_failed"], answered, len(stub.requests_to("/chat/completions"))) == (0, 3, 4)
    assert stats["metadata_usage"]["llm_calls"] == 4
    assert (stats["metadata_usage"]["prompt_tokens"], stats["metadata_usage"]["completion_tokens"]) == (prompt,
                                                                                                        completion)


def test_a_failed_extraction_counts_its_attempts_and_no_tokens_or_cost(tmp_path, stub):
    stub.fail_always = 500
    stub.fail_marker = "Document:\\n# Microsoft"  # only that document's extraction fails, every attempt
    stats = RAGWire(setup(tmp_path, stub, retries=1)).ingest_directory(tmp_path / "docs")
    answered, prompt, completion = stub_tokens(stub)
    assert (stats["processed"], stats["metadata_failed"], answered) == (3, 1, 2)
    usage = stats["metadata_usage"]
    assert usage["llm_calls"] == 4 == len(stub.requests_to("/chat/completions"))
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (prompt, completion)
    assert usage["cost"] == pytest.approx(cost(prompt, completion))


def test_files_that_fail_after_their_extraction_still_count_its_calls(tmp_path, stub):
    rag = RAGWire(setup(tmp_path, stub))
    rag.ingest_documents([tmp_path / "docs" / "notes.md"])  # the collection exists: later failures are the files'
    stub.reset()
    stub.fail_always, stub.fail_marker = 500, "stub-embed"  # every embedding request fails
    (tmp_path / "docs" / "notes.md").unlink()
    stats = rag.ingest_directory(tmp_path / "docs")
    calls, prompt, completion = stub_tokens(stub)
    assert (stats["failed"], calls) == (2, 2)
    assert stats["metadata_usage"]["llm_calls"] == 2
    assert stats["metadata_usage"]["total_tokens"] == prompt + completion


def test_an_ingest_without_extraction_reports_no_calls(tmp_path, stub):
    rag = RAGWire(setup(tmp_path, stub))
    rag.ingest_directory(tmp_path / "docs")
    again = rag.ingest_directory(tmp_path / "docs")  # every file unchanged: skipped, nothing asked
    assert again["skipped"] == 3
    assert again["metadata_usage"] == {"llm_calls": 0, "prompt_tokens": None, "completion_tokens": None,
                                       "total_tokens": None, "cost": None}


def test_sync_reports_extraction_usage_per_source_and_summed(tmp_path, stub):
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "apple-2.md").write_text("# Apple\n\nApple Inc. opened stores in fiscal 2024.\n")
    sources = [{"type": "local", "path": str(tmp_path / "docs"), "name": "docs"},
               {"type": "local", "path": str(tmp_path / "more"), "name": "more"}]
    stats = RAGWire(setup(tmp_path, stub, sources=sources)).sync()
    calls, prompt, completion = stub_tokens(stub)
    assert (stats.processed, calls) == (4, 4)
    total = stats.to_dict()["metadata_usage"]
    assert total == {"llm_calls": 4, "prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": prompt + completion, "cost": pytest.approx(cost(prompt, completion))}
    docs, more = (stats.to_dict()["sources"][key]["metadata_usage"] for key in ("docs", "more"))
    assert (docs["llm_calls"], more["llm_calls"]) == (3, 1)
    assert docs["prompt_tokens"] + more["prompt_tokens"] == prompt


def test_cli_ingest_prints_the_extraction_line_and_its_json_carries_the_usage(tmp_path, stub):
    cfg = str(setup(tmp_path, stub))
    shown = CliRunner().invoke(main, ["ingest", str(tmp_path / "docs"), "--config", cfg], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    calls, prompt, completion = stub_tokens(stub)
    line = (f"  metadata extraction: 3 LLM calls, {prompt + completion} tokens ({prompt} prompt, "
            f"{completion} completion), cost {cost(prompt, completion):.6f}")
    assert line in shown.stdout.splitlines()
    forced = CliRunner().invoke(main, ["ingest", str(tmp_path / "docs"), "--config", cfg, "--force", "--json"],
                                catch_exceptions=False)
    assert json.loads(forced.stdout)["metadata_usage"]["llm_calls"] == 3
    skipped = CliRunner().invoke(main, ["ingest", str(tmp_path / "docs"), "--config", cfg], catch_exceptions=False)
    assert "metadata extraction" not in skipped.output  # no call made: no line


def test_cli_sync_prints_the_extraction_line_before_the_summary_and_json_carries_it(tmp_path, stub):
    cfg = str(setup(tmp_path, stub, pricing=None, sources=[{"type": "local", "path": str(tmp_path / "docs"),
                                                              "name": "docs"}]))
    done = CliRunner().invoke(main, ["sync", "--config", cfg, "--json"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    _, prompt, completion = stub_tokens(stub)
    assert json.loads(done.stdout)["metadata_usage"] == {
        "llm_calls": 3, "prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt + completion, "cost": None}
    lines = done.stderr.rstrip().splitlines()
    assert lines[-2] == (f"  metadata extraction: 3 LLM calls, {prompt + completion} tokens "
                         f"({prompt} prompt, {completion} completion)")
    assert lines[-1].startswith("sync: 1 sources, 3 listed, 3 processed")
