"""Issue 39's matrix through the Python API: three principals × every read path of RAGWire.as_principal,
over public, hr-only and finance-only documents; and the property test on the real engine."""

from __future__ import annotations

import asyncio
import random

import pytest

from ragwire import RAGWire
from ragwire.access import Principal
from ragwire.errors import ConfigError

from .access_corpus import DOCS, PRINCIPALS, SECRETS, build, file_of


@pytest.fixture(scope="module")
def rag(tmp_path_factory, ragwire_home):
    from ..conftest import isolate

    root = tmp_path_factory.mktemp("access")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, root, ragwire_home)
        pipeline = RAGWire(build(root))
        yield pipeline
        pipeline.close()


def _everything_seen(rag, view) -> set[str]:
    """Every file name any read path of ``view`` returns, in any field."""
    seen: set[str] = set()
    for query in ["policy", *SECRETS.values()]:
        for search_type in ("similarity", "hybrid", "keyword", "mmr"):
            seen |= {file_of(d.metadata["source"]) for d in view.retrieve(query, top_k=10, search_type=search_type)}
        seen |= {file_of(d.metadata["source"]) for d in view.hybrid_search(query, k=10)}
        answer = view.query(query, top_k=10)
        seen |= {file_of(c.source) for c in answer.citations}
        answer = view.query(query, top_k=10, refine=True)
        seen |= {file_of(c.source) for c in answer.citations}
        answer = asyncio.run(view.aquery(query, top_k=10))
        seen |= {file_of(c.source) for c in answer.citations}
        *_pieces, last = list(view.query_stream(query, top_k=10))
        seen |= {file_of(c.source) for c in last.citations}
        chat = view.chat([{"role": "user", "content": query}], top_k=10)
        seen |= {file_of(c.source) for c in chat.citations}
        *_pieces, chatted = list(view.chat_stream([{"role": "user", "content": query}], top_k=10))
        seen |= {file_of(c.source) for c in chatted.citations}
        retriever = view.as_retriever(top_k=10)
        seen |= {file_of(d.metadata["source"]) for d in retriever.invoke(query)}
        seen |= {file_of(d.metadata["source"]) for d in asyncio.run(retriever.ainvoke(query))}
    listed = view.list_documents()
    seen |= {file_of(d.source) for d in listed}
    for name in DOCS:  # a source named outright, readable or not
        source = next(d.source for d in rag.list_documents() if file_of(d.source) == name)
        seen |= {file_of(c["metadata"]["source"]) for c in view.document_chunks(source)}
    for field in ("file_name", "source"):
        seen |= {file_of(v) for v in view.get_field_values(field, limit=50)}
    seen |= {name for name in DOCS if name in view.get_filter_context("policy")}
    return seen


@pytest.mark.parametrize("who", list(PRINCIPALS))
def test_each_principal_reads_exactly_its_documents_on_every_python_read_path(rag, who):
    groups, allowed = PRINCIPALS[who]
    view = rag.as_principal(name=who, groups=list(groups))
    assert _everything_seen(rag, view) == allowed
    stats = view.get_stats()
    per_doc = {file_of(d.source): d.chunks for d in rag.list_documents()}
    assert (stats["sources"], stats["total_documents"]) == (len(allowed), sum(per_doc[n] for n in allowed))
    assert "access" not in view.filter_fields


@pytest.mark.parametrize("who", ["nobody", "hr"])
def test_a_search_for_what_a_principal_may_not_read_is_a_search_with_no_results(rag, who):
    groups, allowed = PRINCIPALS[who]
    view = rag.as_principal(name=who, groups=list(groups))
    hidden = [name for name in SECRETS if name not in allowed]
    for name in hidden:
        hits = view.retrieve(SECRETS[name], top_k=10, filters={"file_name": name})
        assert hits == []
        answer = view.query(SECRETS[name], filters={"file_name": name})
        assert not answer and answer.citations == []


def test_an_eval_run_as_a_principal_scores_against_what_it_may_read(rag):
    from ragwire.eval import EvalError, GoldenSet, evaluate

    golden = GoldenSet.from_data({"match_field": "file_name", "queries": [
        {"query": SECRETS["hr.pdf"], "expected": ["hr.pdf"]}]})
    assert evaluate(rag.as_principal(name="h", groups=["hr"]), golden, top_k=3).metrics["recall"] == 1.0
    with pytest.raises(EvalError):  # to a principal without hr, the expected document is not stored
        evaluate(rag.as_principal(name="n"), golden, top_k=3)


def test_no_user_filter_widens_a_principal_on_the_real_engine(rag):
    hr = rag.as_principal(name="h", groups=["hr"])
    widening = [{"access": "finance"}, {"access": ["finance", "hr", "public"]}, {"file_name": ["finance.pdf", "hr.pdf"]},
                {"file_name": "finance.pdf"}]
    for filters in widening:
        got = {file_of(d.metadata["source"]) for d in hr.retrieve("policy budget audit", top_k=10, filters=filters)}
        assert got <= {"public.pdf", "hr.pdf"}, filters
    assert {file_of(d.metadata["source"]) for d in hr.retrieve("policy", top_k=10, filters={"access": "hr"})} == {
        "hr.pdf"}


def test_the_pipeline_itself_stays_unrestricted_and_a_reader_may_not_write(rag, tmp_path):
    assert {file_of(d.source) for d in rag.list_documents()} == set(DOCS)
    reader = rag.as_principal(name="r", groups=["hr"])
    with pytest.raises(ConfigError, match="r is a reader; writes need the writer role"):
        reader.delete_document("anything")
    with pytest.raises(AttributeError, match="not available as a principal"):
        reader.collection  # noqa: B018 - the raw collection would read unfiltered


@pytest.fixture(scope="module")
def notes(tmp_path_factory, ragwire_home):
    """Eight short notes, ingested once; each seed relabels them (no embedding)."""
    from ..conftest import isolate
    from .helpers import write_config

    root = tmp_path_factory.mktemp("notes")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, root, ragwire_home)
        docs = root / "docs"
        docs.mkdir()
        for n in range(8):
            topic = ["tea", "cars", "pay", "maps"][n % 4]
            (docs / f"d{n}.md").write_text(f"# Note {n}\n\nThe shared policy note number {n} about {topic}.\n")
        pipeline = RAGWire(write_config(root))
        pipeline.ingest_directory(docs)
        yield pipeline, sorted(docs.iterdir())
        pipeline.close()


@pytest.mark.parametrize("seed", range(25))
def test_random_labels_and_principals_every_result_is_readable(notes, seed):
    """Property: random labels on random documents, random principals; every result is readable by its principal."""
    rag, paths = notes
    rng = random.Random(seed)
    labels = ["public", "hr", "finance", "legal"]
    truth: dict[str, list[str]] = {}
    for path in paths:
        truth[path.name] = sorted(rng.sample(labels, rng.randint(0, 2)))
        assert rag.ingest_documents([path], access=truth[path.name])["embedded_chunks"] == 0
    for _ in range(4):
        principal = Principal.of("p", rng.sample(labels[1:], rng.randint(0, 3)))
        view = rag.as_principal(principal)
        for filters in (None, {"access": rng.choice(labels)}, {"file_name": [rng.choice(list(truth))]}):
            search_type = rng.choice(["similarity", "hybrid", "keyword", "mmr"])
            for hit in view.retrieve("shared policy note", top_k=8, filters=filters, search_type=search_type):
                assert principal.can_read(truth[file_of(hit.metadata["source"])]), (principal, hit.metadata)
        readable = {n for n, lab in truth.items() if principal.can_read(lab)}
        assert {file_of(d.source) for d in view.list_documents()} == readable


def test_the_collections_word_counts_are_those_of_what_the_reader_may_read(rag):
    # guards: the counts were cached per term for every reader, so a principal's extractive answer
    # could tell from the first reader's count that a word it may not read is in the collection
    from ragwire.access import acting_as
    from ragwire.retrieval.vocabulary import CollectionVocabulary

    vocabulary = CollectionVocabulary(rag.collection, rag.sparse_encoder)
    assert vocabulary.documents_with("kroner") >= 1
    with acting_as(Principal.of("n")):
        assert vocabulary.documents_with("kroner") == 0
        assert vocabulary.size == sum(d.chunks for d in rag.list_documents() if file_of(d.source) == "public.pdf")
    with acting_as(Principal.of("f", ["finance"])):
        assert vocabulary.documents_with("kroner") >= 1
