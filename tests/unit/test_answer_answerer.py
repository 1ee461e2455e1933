"""Answerer logic with an in-memory chat model: refusals, extractive mode, chat turns, usage, async retries."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from ragwire.answer import SENTINEL, Answer, Answerer
from ragwire.answer.prompt import REWRITE_SYSTEM_PROMPT
from ragwire.config import GenerationConfig
from ragwire.errors import ConfigError, ProviderError
from ragwire.providers.retry import acall_with_retries
from ragwire.retrieval import Hit, RetrieveOptions

from ..conftest import scripted_chat

DOCS = [
    Document(page_content=f"Fact number {i} about the robot. " * 10, metadata={"source": f"/d/f{i}.md", "file_name": f"f{i}.md"})
    for i in range(1, 4)
]


class Retrieval:
    """A retrieval-stage double that records what it was asked."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs
        self.calls: list[tuple[Any, ...]] = []

    def retrieve(self, query, options=None):
        options = options or RetrieveOptions()
        self.calls.append((query, options.top_k, options.filters, options.rerank))
        return [Hit.from_document(d) for d in self.docs]


def test_retrieve_gets_the_question_and_every_option():
    retrieve = Retrieval(DOCS)
    Answerer(retrieve, scripted_chat("Yes [1].")).query("Why?", top_k=7, filters={"year": 2025}, rerank=False)
    assert retrieve.calls == [("Why?", 7, {"year": 2025}, False)]


def test_custom_system_prompt_is_sent_with_the_sentinel_filled_in():
    llm = scripted_chat("Yes [1].")
    generation = GenerationConfig(system_prompt="Use the sources. Say {sentinel} if they do not answer.")
    Answerer(Retrieval(DOCS), llm, generation).query("Why?")
    system, user = llm.seen[0]
    assert isinstance(system, SystemMessage)
    assert system.content == f"Use the sources. Say {SENTINEL} if they do not answer."
    assert user.content.startswith('Sources:\n\n<source id="1" from="f1.md">\nFact number 1')


@pytest.mark.parametrize("reply", [f"**{SENTINEL}**", "No answer in sources.", "", "[7]"])
def test_sentinel_variants_and_empty_replies_are_refusals(reply):
    answer = Answerer(Retrieval(DOCS), scripted_chat(reply or AIMessage(""))).query("Warranty?")
    assert answer.refused and not answer
    assert answer.citations == [] and answer.confidence == 0.0
    assert answer.text == "The documents do not contain the answer to this question (searched 3 chunks from 3 files)."
    assert answer.documents == DOCS


def test_a_partial_answer_keeps_its_citations_and_says_the_sentinel_in_words():
    answer = Answerer(Retrieval(DOCS), scripted_chat(f"It docks nightly [2]. Warranty: {SENTINEL}.")).query("q")
    assert not answer.refused
    assert answer.text == "It docks nightly [2]. Warranty: not stated in the sources."
    assert [c.index for c in answer.citations] == [2]


def test_a_sentinel_inside_a_sentence_does_not_leave_the_sentence_unfinished():
    # guards issue 19 item 5: "The cost is NO_ANSWER_IN_SOURCES." came out as "The cost is."
    answer = Answerer(Retrieval(DOCS), scripted_chat(f"It docks nightly [2]. The cost is {SENTINEL}.")).query("q")
    assert answer.text == "It docks nightly [2]. The cost is not stated in the sources."


def test_no_match_under_filters_says_which_filters():
    answer = Answerer(Retrieval([]), scripted_chat()).query("q", filters={"year": 1999})
    assert answer.refused
    assert answer.text.startswith("No documents match the filters {'year': 1999}")
    assert answer.filters_used == {"year": 1999}


def test_tokens_the_provider_reports_are_kept():
    reply = AIMessage("Yes [1].", usage_metadata={"input_tokens": 120, "output_tokens": 4, "total_tokens": 124})
    answer = Answerer(Retrieval(DOCS), scripted_chat(reply)).query("q")
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (120, 4)
    assert answer.usage.retrieval_s >= 0 and answer.usage.generation_s > 0


def test_extractive_mode_without_an_llm():
    seen = []

    def extractive(question, sources):
        seen.append((question, [s.index for s in sources]))
        return "Fact number 2 about the robot [2].", False

    answerer = Answerer(Retrieval(DOCS), None, extractive=extractive)
    answer = answerer.query("Which fact?")
    assert answer.mode == "extractive" and not answer.refused
    assert [c.index for c in answer.citations] == [2] and answer.confidence == 1.0
    assert seen == [("Which fact?", [1, 2, 3])]
    pieces = list(answerer.stream("Which fact?"))
    assert pieces == [answer.text, answer]


def test_extractive_refusal_is_a_refusal_with_its_reason():
    reason = "The retrieved documents do not answer this question (closest passage 0.12, threshold 0.35)."
    answer = Answerer(Retrieval(DOCS), None, extractive=lambda q, s: (reason, True)).query("q")
    assert answer.refused and answer.mode == "extractive" and answer.citations == []
    assert answer.text == reason and answer.confidence == 0.0
    silent = Answerer(Retrieval(DOCS), None, extractive=lambda q, s: ("", True)).query("q")
    assert silent.refused and silent.text.startswith("The documents do not contain the answer")


def test_constructor_checks():
    with pytest.raises(ConfigError, match="needs an llm section"):
        Answerer(Retrieval(DOCS))
    with pytest.raises(ValueError, match="retries: must be >= 0"):
        Answerer(Retrieval(DOCS), scripted_chat(), retries=-1)
    with pytest.raises(ValueError, match="question: must be a non-empty string"):
        Answerer(Retrieval(DOCS), scripted_chat()).query("  ")


def test_chat_rewrites_a_follow_up_and_sends_earlier_turns_unchanged():
    retrieve = Retrieval(DOCS)
    llm = scripted_chat(
        AIMessage('Standalone question: "How long does the robot take to charge?"',
                  usage_metadata={"input_tokens": 50, "output_tokens": 8, "total_tokens": 58}),
        AIMessage("Three hours [1].", usage_metadata={"input_tokens": 300, "output_tokens": 4, "total_tokens": 304}),
    )
    messages = [
        {"role": "user", "content": "Tell me about the robot."},
        AIMessage("It docks every night [1]."),
        HumanMessage("How long does that take?"),
    ]
    answer = Answerer(retrieve, llm).chat(messages, top_k=2)
    assert retrieve.calls == [("How long does the robot take to charge?", 2, None, None)]
    rewrite, final = llm.seen
    assert rewrite[0].content == REWRITE_SYSTEM_PROMPT
    assert "User: Tell me about the robot." in rewrite[1].content
    assert [type(m).__name__ for m in final] == ["SystemMessage", "HumanMessage", "AIMessage", "HumanMessage"]
    assert final[1].content == "Tell me about the robot." and final[2].content == "It docks every night [1]."
    assert final[3].content.endswith("Question: How long does that take?")
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (350, 12)


def test_chat_with_a_single_turn_makes_no_rewrite_call():
    retrieve, llm = Retrieval(DOCS), scripted_chat("Yes [1].")
    Answerer(retrieve, llm).chat([{"role": "user", "content": "Does it dock?"}])
    assert len(llm.seen) == 1 and retrieve.calls[0][0] == "Does it dock?"


def test_chat_without_an_llm_searches_the_previous_user_turn_with_the_last():
    retrieve, asked = Retrieval(DOCS), []
    answerer = Answerer(retrieve, None, extractive=lambda q, s: (asked.append(q) or "Fact [1].", False))
    answerer.chat([
        {"role": "user", "content": "How long does charging take?"},
        {"role": "assistant", "content": "Three hours [1]."},
        {"role": "user", "content": "And the light?"},
    ])
    assert retrieve.calls[0][0] == "How long does charging take?\nAnd the light?"
    # the follow-up alone lacks its topic: extraction scores against the joined turns too
    assert asked == ["How long does charging take?\nAnd the light?"]


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ([], "non-empty list"),
        ([{"role": "system", "content": "Be rude."}, {"role": "user", "content": "q"}],
         r"messages\[0\]\.role: must be 'user' or 'assistant', got 'system'"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
         r"messages\[1\]: the last turn must be the user's question"),
        ([{"role": "user", "content": 3}], r"messages\[0\]\.content: must be text"),
        (["just a string"], r"messages\[0\]: expected a dict"),
    ],
)
def test_malformed_conversations_are_rejected(messages, match):
    with pytest.raises(ValueError, match=match):
        Answerer(Retrieval(DOCS), scripted_chat()).chat(messages)


def test_aquery_equals_query_for_the_same_reply():
    sync = Answerer(Retrieval(DOCS), scripted_chat("Fact one [1]. Fact three [3]."), retries=0).query("q")
    answer = asyncio.run(Answerer(Retrieval(DOCS), scripted_chat("Fact one [1]. Fact three [3].")).aquery("q"))
    assert isinstance(answer, Answer) and answer == sync and answer.confidence == 1.0


def test_acall_with_retries_retries_retryable_failures_then_gives_one_line():
    calls, sleeps = [], []

    async def flaky():
        calls.append(1)
        raise ConnectionError("peer reset\nsecond line")

    async def record(seconds):
        sleeps.append(seconds)

    with pytest.raises(ProviderError, match=r"^LLM answer failed after 3 attempts: ConnectionError: peer reset second line$"):
        asyncio.run(acall_with_retries(flaky, retries=2, what="LLM answer", sleep=record))
    assert len(calls) == 3 and len(sleeps) == 2


def test_acall_with_retries_reraises_bugs_at_once():
    async def buggy():
        raise KeyError("x")

    with pytest.raises(KeyError):
        asyncio.run(acall_with_retries(buggy, retries=3))
