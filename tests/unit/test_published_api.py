"""Names and shapes the published API (docs/python-api.md, the spec ragwire follows) promises."""

from __future__ import annotations

import pytest

import ragwire
from ragwire.eval import GoldenSet, SweepResult, sweep


def test_config_is_exported_under_the_published_name():
    # guards issue 19.14: `from ragwire import Config` failed
    from ragwire import Config

    assert Config is ragwire.config.RagwireConfig
    assert "Config" in ragwire.__all__


def test_the_config_model_has_one_public_name():
    # guards issue 36.5: both Config and RagwireConfig were exported
    assert "RagwireConfig" not in ragwire.__all__ and not hasattr(ragwire, "RagwireConfig")


@pytest.mark.parametrize("name", ["Answer", "Citation", "Hit", "RetrieveOptions", "RagwireRetriever",
                                  "NotFoundError", "StoreFullError", "ServerError", "GoldenSetError", "RequestError"])
def test_what_users_receive_and_catch_is_exported(name):
    # guards issue 36.5: these were reachable only from ragwire's submodules
    import importlib

    assert name in ragwire.__all__
    value = getattr(ragwire, name)
    assert importlib.import_module(value.__module__).__dict__[name] is value


def test_every_exception_of_the_tree_is_exported():
    import inspect

    import ragwire.errors as errors

    tree = {name for name, cls in vars(errors).items()
            if inspect.isclass(cls) and issubclass(cls, errors.RagwireError) and cls.__module__ == errors.__name__}
    assert tree - set(ragwire.__all__) == set()


def test_document_metadata_without_chunk_fields_is_a_document_level_record():
    # guards issue 19.14: chunk_index and total_chunks were required
    from ragwire import DocumentMetadata

    meta = DocumentMetadata(source="/data/a.pdf", file_name="a.pdf", file_type="pdf", file_hash="abc",
                            chunk_id="abc_0")
    assert meta.chunk_index is None and meta.total_chunks is None
    assert DocumentMetadata(source="s", file_name="f", file_type="md", file_hash="h", chunk_id="c",
                            chunk_index=0, total_chunks=42).total_chunks == 42


@pytest.mark.parametrize("variants", [{}, iter(())], ids=["empty-dict", "empty-iterator"])
def test_sweep_without_variants_says_so(variants):
    # guards issue 19.14: an empty sweep crashed later with "max() arg is an empty sequence"
    golden = GoldenSet.from_data([{"query": "q", "expected": "a.md"}])
    with pytest.raises(ValueError, match=r"^a sweep needs at least one variant"):
        sweep(object(), golden, variants)


def test_a_sweep_result_without_runs_is_refused_when_built():
    with pytest.raises(ValueError, match=r"^a sweep needs at least one variant"):
        SweepResult({})


def test_a_golden_entry_without_expected_names_the_key():
    with pytest.raises(ValueError, match=r"entry 1: missing key 'expected'"):
        GoldenSet.from_data([{"query": "What is covered?"}])
