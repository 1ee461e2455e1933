"""The retrieval stage, the answerer and the metadata service built from their parts, with no RAGWire.

A real embedded collection in tmp_path, written through the LangChain adapter, and a
deterministic bag-of-words embedder seeded from SHA-256 (no model to load).
"""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from ragwire.answer import Answerer
from ragwire.config import RagwireConfig, RetrieverConfig
from ragwire.errors import ConfigError
from ragwire.metadata.service import MetadataService
from ragwire.metadata.values import FieldValues, StoredValues
from ragwire.retrieval import Hit, RetrieveOptions, Retriever, Searcher, SupportsRetrieve
from ragwire.retrieval.vectorstore import QdrantStore

from ..conftest import WordEmbedding, scripted_chat

CHUNKS = [
    ("A full charge of the battery takes three hours.", {"file_name": "battery.md", "year": 2024}),
    ("The battery lasts eight hours of cleaning.", {"file_name": "battery.md", "year": 2024}),
    ("The robot returns to its dock every night.", {"file_name": "dock.md", "year": 2023}),
    ("Clean the dock contacts with a dry cloth.", {"file_name": "dock.md", "year": 2023}),
]


def _store(tmp_path, name: str = "alone") -> QdrantStore:
    return QdrantStore({"path": str(tmp_path / "store"), "engine": "edge", "use_sparse": False}, WordEmbedding(),
                       collection_name=name)


@pytest.fixture
def collection(tmp_path):
    store = _store(tmp_path)
    store.create_collection(use_sparse=False)
    texts, metas = zip(*CHUNKS)
    store.get_store(use_sparse=False).add_texts(list(texts), [dict(m) for m in metas])
    yield store.collection
    store.collection.close()


def _retriever(collection, reranker=None, filter_extractor=None, **settings) -> Retriever:
    searcher = Searcher(collection, WordEmbedding(), None)
    config = RetrieverConfig(search_type="similarity", **settings)
    return Retriever(searcher, config, reranker=reranker, filter_extractor=filter_extractor)


# -- the retrieval stage ----------------------------------------------------------------


def test_a_retriever_built_from_parts_returns_typed_hits_best_first(collection):
    retriever = _retriever(collection)
    assert isinstance(retriever, SupportsRetrieve)
    hits = retriever.retrieve("how many hours does a battery charge take", RetrieveOptions(top_k=2))
    assert [type(h) for h in hits] == [Hit, Hit]
    assert hits[0].text == "A full charge of the battery takes three hours."
    assert hits[0].file_name == "battery.md" and hits[0].score_type == "cosine"
    assert hits[0].score >= hits[1].score and hits[0].rerank_score is None
    assert "score" not in hits[0].metadata  # scores are attributes; the Document carries them in its metadata
    assert hits[0].to_document().metadata["score"] == hits[0].score


def test_the_settings_top_k_applies_and_filters_narrow_the_search(collection):
    assert len(_retriever(collection, top_k=3).retrieve("battery")) == 3
    hits = _retriever(collection).retrieve("battery", RetrieveOptions(filters={"file_name": "dock.md"}))
    assert {h.file_name for h in hits} == {"dock.md"}
    with pytest.raises(ConfigError, match="rerank=True was passed but no reranker"):
        _retriever(collection).retrieve("battery", RetrieveOptions(rerank=True))
    with pytest.raises(ConfigError, match="at least 1"):
        _retriever(collection).retrieve("battery", RetrieveOptions(top_k=0))


def test_reranking_widens_the_fetch_and_keeps_the_rerankers_best(collection):
    seen: list[list[str]] = []

    class LastIsBest:
        def score(self, query, documents):
            seen.append(list(documents))
            return [float(i) for i in range(len(documents))]

    retriever = _retriever(collection, reranker=LastIsBest(), rerank={"enabled": True, "fetch_k": 3})
    hits = retriever.retrieve("battery", RetrieveOptions(top_k=1))
    assert len(seen[0]) == 3  # fetch_k candidates, not top_k
    assert [h.text for h in hits] == [seen[0][-1]] and hits[0].rerank_score == 2.0
    assert len(retriever.retrieve("battery", RetrieveOptions(top_k=1, rerank=False))) == 1 and len(seen) == 1


def test_auto_filter_asks_the_filter_extractor_only_when_no_filters_are_given(collection):
    asked: list[str] = []

    class Extractor:
        def filters(self, query, usage=None):
            asked.append(query)
            return {"file_name": "dock.md"}

    retriever = _retriever(collection, filter_extractor=Extractor(), auto_filter=True)
    assert {h.file_name for h in retriever.retrieve("battery")} == {"dock.md"}
    assert {h.file_name for h in retriever.retrieve("battery", RetrieveOptions(filters={}))} >= {"battery.md"}
    assert asked == ["battery"]


def test_a_collection_not_created_yet_gives_no_hits_but_a_bad_filter_is_still_an_error(tmp_path):
    retriever = Retriever(Searcher(_store(tmp_path, "never").collection, WordEmbedding(), None), RetrieverConfig())
    assert retriever.retrieve("battery") == []
    with pytest.raises(ConfigError):
        retriever.retrieve("battery", RetrieveOptions(filters={"year": None}))


# -- the answerer ---------------------------------------------------------------------


def test_an_answerer_built_on_a_retriever_cites_the_hit_it_was_given(collection):
    llm = scripted_chat("A full charge takes three hours [1].")
    answer = Answerer(_retriever(collection, top_k=2), llm).query("How many hours does a battery charge take?")
    assert answer and answer.text == "A full charge takes three hours [1]."
    assert [c.file_name for c in answer.citations] == ["battery.md"]
    assert answer.citations[0].score == pytest.approx(answer.documents[0].metadata["score"])
    # the spec's Answer.documents are LangChain Documents, scores in their metadata
    assert all(isinstance(d, Document) and d.metadata["score_type"] == "cosine" for d in answer.documents)


def test_an_answerer_refuses_without_a_model_call_when_the_filters_match_nothing(collection):
    llm = scripted_chat()  # any call would fail: there is no reply
    answer = Answerer(_retriever(collection), llm).query("battery?", filters={"file_name": "manual.pdf"})
    assert answer.refused and "No documents match the filters" in answer.text


# -- the metadata service -------------------------------------------------------------------


def test_the_metadata_service_reads_stored_values_through_a_field_values_reader(collection):
    values = StoredValues(collection)
    assert isinstance(values, FieldValues)
    stored = values.field_values(["file_name", "year"])
    # two chunks each: equal counts, in no set order
    assert sorted(stored["file_name"]) == ["battery.md", "dock.md"] and sorted(stored["year"]) == [2023, 2024]
    config = RagwireConfig.model_validate({"embeddings": {"provider": "huggingface", "model_name": "words-64"}})
    service = MetadataService(config, lambda: None, values)
    assert not service.enabled  # no llm section: nothing is extracted
    context = service.context("", ["file_name", "year"])
    assert "file_name" in context and "dock.md" in context and "2023" in context


def test_stored_values_before_the_first_ingest_are_empty(tmp_path):
    assert StoredValues(_store(tmp_path, "never").collection).field_values(["year"], 5) == {"year": []}


@pytest.mark.parametrize("provider", ["huggingface", "fastembed", "openai"])
def test_only_the_onnx_model_loads_early_in_a_thread(tmp_path, provider):
    from ragwire.components import build

    embeddings = {"provider": provider, "model": "m"} if provider == "openai" else {"provider": provider}
    config = RagwireConfig.model_validate({"embeddings": embeddings, "vectorstore": {"path": str(tmp_path)}})
    parts = build(config)
    parts.load_embedding_soon()
    assert parts._loading is None and parts._embedding is None
