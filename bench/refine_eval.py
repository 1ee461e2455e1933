"""Single-shot vs refined answers on multi-part questions over the bundled example documents.

``examples/docs`` is copied into a temporary folder and ingested with the defaults of
``config.yaml.example``; every question of the golden set (default
``bench/golden/multipart_examples_docs.yaml``, each part answered in a different file) is
asked twice in extractive mode (the offline default): ``query(q)`` and ``query(q, refine=True)``.
It prints the share of questions whose answer cites every expected file, the share citing at
least one, the refusals, the retrieval rounds and the seconds per question.  Then the same is
asked with an LLM, the real ChatOpenAI client against the OpenAI-protocol stub of
``tests/stubs`` (it plans by the router's split and judges every part sufficient), to count
the LLM calls per question for single-shot, refined multi-part, and refined simple questions.

    python bench/refine_eval.py
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.go_offline()
sys.path.insert(0, str(common.BENCH_DIR.parent))

from ragwire.eval import GoldenSet  # noqa: E402

REPO = common.BENCH_DIR.parent
DEFAULT_GOLDEN = common.BENCH_DIR / "golden" / "multipart_examples_docs.yaml"
SIMPLE_GOLDEN = common.BENCH_DIR / "golden" / "examples_docs.yaml"


def write_config(tmp: Path, llm_url: str | None = None) -> Path:
    import yaml

    data = yaml.safe_load((REPO / "config.yaml.example").read_text(encoding="utf-8"))
    data["vectorstore"]["path"] = str(tmp / "store")
    data["vectorstore"]["collection_name"] = "refine_eval"
    data.setdefault("logging", {})["level"] = "WARNING"
    if llm_url:
        data["llm"] = {"provider": "openai", "model": "stub-chat", "base_url": llm_url, "api_key": "test",
                       "pricing": {"input_per_million": 0.15, "output_per_million": 0.60}}
    path = tmp / ("config-llm.yaml" if llm_url else "config.yaml")
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def cited_files(answer: Any) -> set[str]:
    return {Path(str(c.source)).name for c in answer.citations}


def score(rag: Any, golden: GoldenSet, refine: bool) -> dict[str, Any]:
    every = some = refused = 0
    rounds, seconds = [], []
    for entry in golden.entries:
        start = time.perf_counter()
        answer = rag.query(entry.query, refine=refine)
        seconds.append(time.perf_counter() - start)
        files = cited_files(answer)
        expected = set(entry.expected)
        every += expected <= files
        some += bool(expected & files)
        refused += answer.refused
        rounds.append(answer.iterations)
    n = len(golden.entries)
    return {"all_expected_cited": every / n, "some_expected_cited": some / n, "refused": refused,
            "mean_iterations": statistics.mean(rounds), "mean_s": statistics.mean(seconds)}


def stub_reply(body: dict[str, Any]) -> str:
    """The stub LLM: plans by the router's split, judges every part sufficient, answers citing [1]."""
    from ragwire.answer.parts import split_parts
    from ragwire.answer.refine_llm import CLASSIFY_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT

    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system == CLASSIFY_SYSTEM_PROMPT:
        question = user.removeprefix("Question: ")
        return json.dumps({"kind": "multi-part", "queries": split_parts(question)})
    if system == JUDGE_SYSTEM_PROMPT:
        parts = [line[2:] for line in user.split("Parts of the question:\n")[-1].splitlines()]
        return json.dumps({"parts": [{"part": p, "sufficient": True} for p in parts]})
    return "The answer is in the first source [1]."


def llm_calls(rag: Any, questions: list[str], refine: bool) -> dict[str, float]:
    calls, tokens, cost = [], [], []
    for q in questions:
        answer = rag.query(q, refine=refine)
        calls.append(answer.usage.llm_calls)
        tokens.append(answer.usage.total_tokens or 0)
        cost.append(answer.usage.cost or 0.0)
    return {"calls": statistics.mean(calls), "tokens": statistics.mean(tokens), "cost": statistics.mean(cost)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN)
    args = ap.parse_args()

    from ragwire import RAGWire
    from tests.stubs import StubServer

    golden = GoldenSet.from_file(args.golden)
    simple = [e.query for e in GoldenSet.from_file(SIMPLE_GOLDEN).entries][:20]
    tmp = Path(tempfile.mkdtemp(prefix="ragwire-refine-eval-"))
    try:
        shutil.copytree(REPO / "examples" / "docs", tmp / "docs")
        rag = RAGWire(str(write_config(tmp)))
        rag.ingest_directory(tmp / "docs")
        with rag:
            rag.query("warm-up")
            extractive = {"single-shot": score(rag, golden, False), "refined": score(rag, golden, True)}
        rag.close()
        with StubServer(chat_reply=stub_reply) as stub:
            rag = RAGWire(str(write_config(tmp, stub.openai_url)))
            with rag:
                multi = [e.query for e in golden.entries]
                calls = {"single-shot, multi-part": llm_calls(rag, multi, False),
                         "refined, multi-part": llm_calls(rag, multi, True),
                         "single-shot, simple": llm_calls(rag, simple, False),
                         "refined, simple": llm_calls(rag, simple, True)}
            rag.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    n = len(golden.entries)
    print(f"\nExtractive answers, {n} multi-part questions ({args.golden.name}), top_k 5, hybrid")
    print(f"{'mode':<12} {'cites every file':>17} {'cites one+':>11} {'refused':>8} {'rounds':>7} {'s/question':>11}")
    for mode, r in extractive.items():
        print(f"{mode:<12} {r['all_expected_cited']:>17.2f} {r['some_expected_cited']:>11.2f} {r['refused']:>8d} "
              f"{r['mean_iterations']:>7.2f} {r['mean_s']:>11.2f}")
    print(f"\nLLM calls per question (ChatOpenAI against the stub; {len(simple)} simple questions from "
          f"{SIMPLE_GOLDEN.name}; judge always sufficient)")
    print(f"{'run':<26} {'LLM calls':>10} {'tokens':>8} {'cost':>10}")
    for name, r in calls.items():
        print(f"{name:<26} {r['calls']:>10.2f} {r['tokens']:>8.1f} {r['cost']:>10.6f}")
    print(f"\nragwire {common.code_version()}, load average {common.load_average()}")


if __name__ == "__main__":
    main()
