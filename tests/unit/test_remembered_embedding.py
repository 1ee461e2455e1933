"""The answerer's embedder remembers vectors: a text reaches the model once, answers stay the same."""

from __future__ import annotations

import threading

import pytest

from ragwire.providers.remembered import RememberedEmbedding


class CountingEmbedder:
    """Vectors from the text's length and vowels; counts what reaches it."""

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []
        self.model_id = "counting"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [[float(len(t)), float(sum(c in "aeiou" for c in t)), 0.5] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return [float(len(text)), -1.0, 0.25]


def test_a_text_embedded_twice_reaches_the_model_once_with_the_same_vector() -> None:
    inner = CountingEmbedder()
    memo = RememberedEmbedding(inner)
    first = memo.embed_documents(["price", "weight", "price"])
    second = memo.embed_documents(["weight", "colour"])
    assert inner.documents == ["price", "weight", "colour"]
    assert first == [[5.0, 2.0, 0.5], [6.0, 2.0, 0.5], [5.0, 2.0, 0.5]]
    assert second[0] == first[1]


def test_queries_and_documents_are_remembered_apart() -> None:
    inner = CountingEmbedder()
    memo = RememberedEmbedding(inner)
    assert memo.embed_query("price") == [5.0, -1.0, 0.25]
    assert memo.embed_documents(["price"]) == [[5.0, 2.0, 0.5]]
    assert memo.embed_query("price") == [5.0, -1.0, 0.25]
    assert inner.queries == ["price"] and inner.documents == ["price"]


def test_the_least_recently_used_vector_is_dropped_past_capacity() -> None:
    inner = CountingEmbedder()
    memo = RememberedEmbedding(inner, capacity=2)
    memo.embed_documents(["a", "b"])
    memo.embed_documents(["a"])  # "a" is now the most recent
    memo.embed_documents(["c"])  # drops "b"
    memo.embed_documents(["a", "b"])
    assert inner.documents == ["a", "b", "c", "b"]


def test_other_attributes_come_from_the_wrapped_embedder() -> None:
    assert RememberedEmbedding(CountingEmbedder()).model_id == "counting"
    with pytest.raises(AttributeError):
        RememberedEmbedding(CountingEmbedder()).no_such_attribute  # noqa: B018


def test_a_capacity_below_one_is_refused_with_the_number() -> None:
    with pytest.raises(ValueError, match="capacity must be positive, got 0"):
        RememberedEmbedding(CountingEmbedder(), capacity=0)


def test_threads_asking_at_once_all_get_the_right_vectors() -> None:
    memo = RememberedEmbedding(CountingEmbedder(), capacity=8)
    words = [f"w{'a' * i}" for i in range(20)]
    wrong: list[str] = []

    def ask() -> None:
        for _ in range(20):
            for word, vector in zip(words, memo.embed_documents(words), strict=True):
                if vector[0] != len(word):
                    wrong.append(word)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
