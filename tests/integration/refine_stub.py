"""The scripted chat model of the refinement tests: the OpenAI-protocol stub answering by the system prompt.

The classify prompt gets the plan, the judge prompt the next scripted verdict, filter
and metadata extraction their JSON, anything else the answer.  A plan or verdict given
as a string is sent as it is (non-JSON, wrong shapes); ``delay`` holds a step's reply
back (timeouts).  ``calls`` logs every request in order with its step and reply, so a
test can compare ``Answer.usage`` with what the server received, call by call.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ragwire import RAGWire
from ragwire.answer.refine_llm import CLASSIFY_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT
from ragwire.metadata.extractor import SYSTEM_PROMPT as METADATA_SYSTEM_PROMPT
from ragwire.metadata.filters import FILTER_SYSTEM_PROMPT
from tests.stubs import StubServer

from .helpers import write_config, write_topics

CHARGE = "How long does a full charge of the robot take?"
CHAIN = "How often should the bike chain be oiled?"
QUESTION = "How long does a full charge of the robot take, and how often should the bike chain be oiled?"
ANSWER = "A full charge takes three hours [1]. Oil the chain every two hundred kilometres [2]."
PRICING = {"input_per_million": 0.15, "output_per_million": 0.60}
# The stub reports this many prompt tokens for every reply, and one completion token per word.
PROMPT_TOKENS = 10


def step_of(body: dict[str, Any]) -> str:
    """Which step of ragwire sent this chat request, read from its system prompt."""
    system = str(body["messages"][0]["content"])
    if system == CLASSIFY_SYSTEM_PROMPT:
        return "classify"
    if system == JUDGE_SYSTEM_PROMPT:
        return "judge"
    if system.startswith(FILTER_SYSTEM_PROMPT):
        return "filters"
    if system.startswith(METADATA_SYSTEM_PROMPT):
        return "metadata"
    return "answer"


class Script:
    """What the stub replies to each step, and every request it got."""

    def __init__(self) -> None:
        self.plan: dict[str, Any] | str = {"kind": "multi-part", "queries": [CHARGE, CHAIN]}
        self.verdicts: list[dict[str, Any] | str] = []
        self.answer = ANSWER
        self.filters: dict[str, Any] | str = "{}"
        self.metadata: dict[str, Any] | str = "{}"
        self.delay: dict[str, float] = {}
        self.sent: dict[str, list[dict[str, Any]]] = {"classify": [], "judge": [], "answer": [], "filters": [],
                                                      "metadata": []}
        self.replies: list[str] = []
        self.calls: list[tuple[str, str]] = []  # (step, reply) in arrival order

    def __call__(self, body: dict[str, Any]) -> str:
        step = step_of(body)
        if step == "classify":
            reply = _text(self.plan)
        elif step == "judge":
            reply = _text(self.verdicts.pop(0) if len(self.verdicts) > 1 else self.verdicts[0])
        elif step == "filters":
            reply = _text(self.filters)
        elif step == "metadata":
            reply = _text(self.metadata)
        else:
            reply = self.answer
        self.sent[step].append(body)
        self.replies.append(reply)
        self.calls.append((step, reply))
        time.sleep(self.delay.get(step, 0.0))
        return reply

    def usage_of(self, *steps: str) -> tuple[int, int]:
        """``(prompt, completion)`` tokens the stub reported for the calls of ``steps`` (all without any)."""
        chosen = [reply for step, reply in self.calls if not steps or step in steps]
        return PROMPT_TOKENS * len(chosen), sum(len(reply.split()) for reply in chosen)


def _text(reply: dict[str, Any] | str) -> str:
    return reply if isinstance(reply, str) else json.dumps(reply)


def sufficient(*parts: str) -> dict[str, Any]:
    return {"parts": [{"part": p, "sufficient": True} for p in parts]}


def missing(part: str, what: str, query: str, *covered: str) -> dict[str, Any]:
    return {"parts": [*({"part": p, "sufficient": True} for p in covered),
                      {"part": part, "sufficient": False, "missing": what, "query": query}]}


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture(scope="module")
def rag(stub, tmp_path_factory) -> Iterator[RAGWire]:
    root = tmp_path_factory.mktemp("refine")
    llm = {"provider": "openai", "model": "stub-chat", "base_url": stub.openai_url, "api_key": "test",
           "pricing": PRICING, "timeout": 3}
    rag = RAGWire(write_config(root, llm=llm))
    docs = write_topics(root / "docs")
    assert rag.ingest_documents([str(p) for p in docs])["processed"] == len(docs)
    with rag:
        yield rag


@pytest.fixture
def script(stub, rag) -> Iterator[Script]:
    script = Script()
    stub.chat_reply = script
    stub.reset()
    yield script
    rag.callbacks = []


@pytest.fixture
def searched(rag, monkeypatch) -> list[str]:
    """Every query the answerer sent to the real retrieval stage."""
    queries: list[str] = []
    inner = rag.answerer.retriever

    class Recording:
        def retrieve(self, query, options=None):
            queries.append(query)
            return inner.retrieve(query, options)

    monkeypatch.setattr(rag.answerer, "retriever", Recording())
    return queries


def retrieve_steps(answer) -> list[tuple[int, str]]:
    return [(s.iteration, s.data["query"]) for s in answer.trace if s.step == "retrieve"]
