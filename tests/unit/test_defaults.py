"""Each config key's default has one home, the config model: the store, its engines and the query stages read it there."""

from __future__ import annotations

from pathlib import Path

from ragwire.components import Parts
from ragwire.config import RagwireConfig, RetrieverConfig, VectorstoreConfig
from ragwire.store import Collection, EdgeEngine, Fusion, StoreOptions, make_engine


def _config(**sections: object) -> RagwireConfig:
    return RagwireConfig.model_validate({"embeddings": {"provider": "onnx"}, **sections},
                                        context={"base_dir": Path.cwd()})


def test_store_timings_default_to_the_vectorstore_sections(tmp_path):
    # guards issue 36: hold_open_s was 2.0 in the config and 0.0 in a Collection built without it
    section = VectorstoreConfig()
    options = StoreOptions()
    assert (options.hold_open_s, options.lock_wait_s, options.write_wait_s, options.lease_ttl_s) == (
        section.hold_open_s, section.lock_wait_s, section.write_wait_s, section.lease_ttl_s)
    collection = Collection(EdgeEngine(tmp_path, "c"), "c", StoreOptions.of(section))
    assert collection.session.hold_open_s == section.hold_open_s
    assert EdgeEngine(tmp_path, "c").lock_wait_s == section.lock_wait_s


def test_the_timings_a_vectorstore_section_sets_reach_the_engine_and_the_writer(tmp_path):
    section = VectorstoreConfig(path=tmp_path, hold_open_s=0.5, lock_wait_s=3, write_wait_s=4, lease_ttl_s=9)
    options = StoreOptions.of(section)
    assert options == StoreOptions(hold_open_s=0.5, lock_wait_s=3.0, write_wait_s=4.0, lease_ttl_s=9.0)
    engine = make_engine(section)
    assert isinstance(engine, EdgeEngine) and engine.lock_wait_s == 3.0
    collection = Collection(engine, "c", options)
    assert (collection.writer.wait_s, collection.lease.ttl_s) == (4.0, 9.0)


def test_an_engine_fusion_left_unset_is_the_retriever_sections_default():
    # guards issue 36: the engines fused with rrf while the config's default is dbsf
    section = RetrieverConfig()
    fusion = Fusion()
    assert (fusion.method, fusion.k, fusion.dense_limit, fusion.sparse_limit) == (
        section.fusion, section.rrf_k, section.fetch_k, section.fetch_k)


def test_query_retries_follow_ingestion_retries_unless_retriever_retries_is_set():
    assert Parts(_config(ingestion={"retries": 4})).query_retries == 4
    assert Parts(_config(ingestion={"retries": 4}, retriever={"retries": 0})).query_retries == 0


def test_a_searcher_reranker_answerer_or_extractor_built_by_hand_takes_the_config_models_defaults(tmp_path):
    # guards issue 36: Searcher fetched 20 candidates where retriever.fetch_k defaults to 30, and
    # three stages repeated ingestion.retries' default as a literal
    import inspect

    from ragwire.config import IngestionConfig, MetadataConfig
    from ragwire.metadata.extractor import MetadataExtractor
    from ragwire.rerank import get_reranker
    from ragwire.retrieval.search import Searcher

    retriever, ingestion = RetrieverConfig(), IngestionConfig()
    searcher = Searcher(Collection(EdgeEngine(tmp_path, "c"), "c"), embedding=None, sparse=None)  # type: ignore[arg-type]
    assert (searcher.fetch_k, searcher.mmr_lambda, searcher.retries) == (
        retriever.fetch_k, retriever.mmr_lambda, ingestion.retries)
    assert (searcher.fusion.dense_limit, searcher.fusion.sparse_limit) == (retriever.fetch_k, retriever.fetch_k)
    assert inspect.signature(get_reranker).parameters["retries"].default == ingestion.retries
    from ragwire.answer.answerer import Answerer

    assert inspect.signature(Answerer).parameters["retries"].default == ingestion.retries
    extractor = inspect.signature(MetadataExtractor).parameters
    assert extractor["retries"].default == ingestion.retries
    assert extractor["max_chars"].default == MetadataConfig().max_chars
