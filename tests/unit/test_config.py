"""Tests for ragwire.config: loading, ${VAR} expansion, path resolution and one-line problems."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ragwire.config import DEFAULT_EXTENSIONS, RagwireConfig, load_config, parse_config
from ragwire.errors import ConfigError
from ragwire.retrieval.search import hybrid_fusion

MINIMAL = "embeddings:\n  provider: fastembed\n"


def write(folder: Path, text: str, name: str = "config.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def parse(data: dict, base_dir: Path = Path("/base")) -> RagwireConfig:
    return parse_config({"embeddings": {"provider": "fastembed"}, **data}, base_dir=base_dir)


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(data)
    return info.value.problems


# --- every problem at once -------------------------------------------------------------------


def test_typo_unset_env_var_and_unknown_provider_give_exactly_three_lines(tmp_path, monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    path = write(
        tmp_path,
        "splitter:\n  chunk_sizee: 500\n"
        "embeddings:\n  provider: huggingfac\n"
        "llm:\n  provider: groq\n  model: llama\n  api_key: ${GROQ_API_KEY}\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert len(lines) == 3
    assert all(line.startswith("config.yaml: ") for line in lines)
    assert sorted(info.value.problems) == sorted([
        "splitter.chunk_sizee: unknown key (did you mean 'chunk_size'?)",
        "llm.api_key: environment variable GROQ_API_KEY is not set "
        "(export it, or write ${GROQ_API_KEY:-default})",
        "embeddings.provider: 'huggingfac' is not a known provider (did you mean 'huggingface'? "
        "choose from: fastembed, google, huggingface, ollama, onnx, openai, openrouter)",
    ])


def test_misspelled_key_reports_did_you_mean():
    expected = r"splitter\.chunk_sizee: unknown key \(did you mean 'chunk_size'\?\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"splitter": {"chunk_sizee": 500}})


def test_misspelled_section_reports_did_you_mean():
    expected = r"^config\.yaml: retreiver: unknown key \(did you mean 'retriever'\?\)$"
    with pytest.raises(ConfigError, match=expected):
        parse({"retreiver": {"top_k": 3}})


def test_unknown_key_far_from_any_known_key_has_no_hint():
    assert problems({"loader": {"zzz": 1}}) == ["loader.zzz: unknown key"]


def test_unknown_choice_outside_provider_names_the_field_and_suggests():
    assert problems({"retriever": {"search_type": "hybird"}}) == [
        "retriever.search_type: 'hybird' is not a valid search type "
        "(did you mean 'hybrid'? choose from: hybrid, keyword, mmr, similarity)"
    ]


def test_type_and_range_errors_name_rule_and_value():
    data = {"retriever": {"top_k": "many"}, "ingestion": {"workers": 0}, "loader": {"recursive": "perhaps"}}
    assert problems(data) == [
        "loader.recursive: must be true or false (got 'perhaps')",
        "ingestion.workers: must be at least 1 (got 0)",
        "retriever.top_k: must be an integer (got 'many')",
    ]


def test_chunk_overlap_must_be_smaller_than_chunk_size():
    expected = r"splitter\.chunk_overlap: must be smaller than chunk_size \(got 1600 >= 1500\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"splitter": {"chunk_overlap": 1600}})


def test_section_that_is_not_a_mapping_is_reported():
    assert problems({"splitter": 3}) == ["splitter: must be a mapping of keys (got 3)"]


def test_invalid_config_is_a_value_error():
    with pytest.raises(ValueError, match="unknown key"):
        parse({"nonsense": True})


def test_missing_embeddings_section_says_what_to_add():
    with pytest.raises(ConfigError, match=r"embeddings: required section is missing \(add it with at least"):
        parse_config({}, base_dir=Path("/base"))


# --- loading the file --------------------------------------------------------------------------


def test_missing_file_raises_file_not_found_with_hint(tmp_path):
    expected = r"config file not found: .*nope\.yaml \(run `ragwire init` to write a commented one\)"
    with pytest.raises(FileNotFoundError, match=expected):
        load_config(tmp_path / "nope.yaml")


def test_invalid_yaml_reports_line_and_column(tmp_path):
    path = write(tmp_path, "embeddings:\n  provider: [fastembed\n")
    with pytest.raises(ConfigError, match=r"^config\.yaml: invalid YAML at line 3, column 1: "):
        load_config(path)


def test_duplicated_section_names_the_key_and_both_lines(tmp_path):
    # Regression: YAML kept the second `vectorstore:` block and silently dropped the first.
    path = write(tmp_path, MINIMAL + "vectorstore:\n  path: a\nlogging:\n  level: INFO\nvectorstore:\n  path: b\n")
    expected = r"^config\.yaml: vectorstore: duplicate key at line 7 \(first at line 3\); YAML would silently keep only the last"
    with pytest.raises(ConfigError, match=expected):
        load_config(path)


def test_duplicated_key_inside_a_section_names_its_path(tmp_path):
    path = write(tmp_path, MINIMAL + "splitter:\n  chunk_size: 500\n  chunk_overlap: 50\n  chunk_size: 800\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.problems == [
        "splitter.chunk_size: duplicate key at line 6 (first at line 4); "
        "YAML would silently keep only the last one, so merge them into one"
    ]


def test_a_key_overriding_a_merged_one_is_not_a_duplicate(tmp_path):
    path = write(tmp_path, MINIMAL + (
        "sources:\n"
        "  - &docs {type: local, path: docs, recursive: true}\n"
        "  - <<: *docs\n"
        "    path: more\n"
    ))
    first, second = load_config(path).sources
    assert (first.path, second.path, second.recursive) == (tmp_path / "docs", tmp_path / "more", True)


def test_empty_file_says_what_is_required(tmp_path):
    expected = r"the file is empty: it needs at least an 'embeddings' section with a 'provider'"
    with pytest.raises(ConfigError, match=expected):
        load_config(write(tmp_path, "# nothing yet\n"))


def test_top_level_list_is_rejected(tmp_path):
    with pytest.raises(ConfigError, match=r"must be a mapping of sections \(got a list\)"):
        load_config(write(tmp_path, "- embeddings\n"))


def test_load_records_source_and_source_is_not_a_user_key(tmp_path):
    path = write(tmp_path, MINIMAL)
    assert load_config(path).source == path.resolve()
    assert parse({}).source is None
    assert problems({"source": "x.yaml"}) == ["source: unknown key (did you mean 'sources'?)"]


def test_empty_section_means_defaults(tmp_path):
    config = load_config(write(tmp_path, MINIMAL + "ingestion:\nllm:\n"))
    assert config.ingestion.workers == 1
    assert config.llm is None


# --- ${VAR} expansion ------------------------------------------------------------------------


def test_env_var_is_expanded(monkeypatch):
    monkeypatch.setenv("RAGWIRE_TEST_COLLECTION", "filings")
    monkeypatch.setenv("RAGWIRE_TEST_TOP_K", "7")
    config = parse({"vectorstore": {"collection_name": "${RAGWIRE_TEST_COLLECTION}_2026"},
                    "retriever": {"top_k": "${RAGWIRE_TEST_TOP_K}"}})
    assert config.vectorstore.collection_name == "filings_2026"
    assert config.retriever.top_k == 7


def test_env_default_is_used_when_var_unset_or_empty(monkeypatch):
    monkeypatch.delenv("RAGWIRE_TEST_UNSET", raising=False)
    monkeypatch.setenv("RAGWIRE_TEST_EMPTY", "")
    config = parse({"vectorstore": {"collection_name": "${RAGWIRE_TEST_UNSET:-docs}"},
                    "llm": {"provider": "ollama", "model": "${RAGWIRE_TEST_EMPTY:-qwen3.5:9b}"}})
    assert config.vectorstore.collection_name == "docs"
    assert config.llm.model == "qwen3.5:9b"


def test_empty_env_default_leaves_optional_key_unset(monkeypatch):
    monkeypatch.delenv("RAGWIRE_TEST_KEY", raising=False)
    config = parse({"llm": {"provider": "openai", "model": "gpt-4o", "api_key": "${RAGWIRE_TEST_KEY:-}"}})
    assert config.llm.api_key is None


def test_double_dollar_is_a_literal_dollar_brace(monkeypatch):
    monkeypatch.delenv("X", raising=False)
    config = parse({"generation": {"system_prompt": "cost $${X} {sentinel}"}})
    assert config.generation.system_prompt == "cost ${X} {sentinel}"


def test_unset_env_var_in_list_item_names_its_path(monkeypatch):
    monkeypatch.delenv("RAGWIRE_TEST_BUCKET", raising=False)
    # the "" left behind would also fail min_length; only the env problem is reported
    sources = [{"type": "local", "path": "docs"}, {"type": "s3", "bucket": "${RAGWIRE_TEST_BUCKET}"}]
    assert problems({"sources": sources}) == [
        "sources[1].bucket: environment variable RAGWIRE_TEST_BUCKET is not set "
        "(export it, or write ${RAGWIRE_TEST_BUCKET:-default})"
    ]


def test_env_problems_and_validation_problems_form_one_error(monkeypatch):
    monkeypatch.delenv("RAGWIRE_TEST_A", raising=False)
    monkeypatch.delenv("RAGWIRE_TEST_B", raising=False)
    found = problems({
        "vectorstore": {"url": "${RAGWIRE_TEST_A}"},
        "retriever": {"top_k": "${RAGWIRE_TEST_B}", "rrf_k": 0},
    })
    assert [p.split(":")[0] for p in found] == ["vectorstore.url", "retriever.top_k", "retriever.rrf_k"]


# --- paths -------------------------------------------------------------------------------------


def test_relative_paths_resolve_against_config_folder_not_cwd(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    path = write(folder, """
embeddings: {provider: huggingface, model_name: ./models/minilm}
metadata: {config_file: metadata.yaml}
vectorstore: {path: data/qdrant}
retriever: {rerank: {model: ../rerankers/bge}}
logging: {log_file: logs/rag.log}
sources:
  - {type: local, path: ./documents}
  - {type: s3, bucket: filings}
""")
    config = load_config(path)
    assert config.embeddings.model_name == str(folder / "models" / "minilm")
    assert config.metadata.config_file == folder / "metadata.yaml"
    assert config.vectorstore.path == folder / "data" / "qdrant"
    assert config.retriever.rerank.model == str(tmp_path / "rerankers" / "bge")
    assert config.logging.log_file == folder / "logs" / "rag.log"
    assert config.sources[0].path == folder / "documents"
    assert config.sources[1].cache_dir == folder / ".ragwire_cache"


def test_model_ids_are_not_treated_as_paths():
    model_id = "sentence-transformers/all-MiniLM-L6-v2"
    config = parse({"embeddings": {"provider": "huggingface", "model_name": model_id}})
    assert config.embeddings.model_name == model_id


def test_tilde_expands_to_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    config = parse({"logging": {"log_file": "~/rag.log"}})
    assert config.logging.log_file == tmp_path / "rag.log"


def test_absolute_paths_are_kept(tmp_path):
    assert parse({"vectorstore": {"path": str(tmp_path / "q")}}).vectorstore.path == tmp_path / "q"


# --- vectorstore -------------------------------------------------------------------------------


def test_vectorstore_path_defaults_to_ragwire_data_beside_config(tmp_path):
    config = load_config(write(tmp_path, MINIMAL))
    assert config.vectorstore.path == tmp_path / ".ragwire_data"
    assert config.vectorstore.url is None
    assert config.vectorstore.resolved_engine == "edge"


def test_url_that_is_a_folder_moves_to_path():
    config = parse({"vectorstore": {"url": "./qdrant_data"}})
    assert config.vectorstore.url is None
    assert config.vectorstore.path == Path("/base/qdrant_data")
    assert not config.vectorstore.is_remote


def test_http_url_is_remote_qdrant():
    config = parse({"vectorstore": {"url": "http://localhost:6333", "api_key": "k"}})
    assert config.vectorstore.is_remote
    assert config.vectorstore.path is None
    assert config.vectorstore.resolved_engine == "qdrant"


def test_engine_qdrant_with_a_path_is_qdrant_local_mode():
    config = parse({"vectorstore": {"engine": "qdrant", "path": "q"}})
    assert config.vectorstore.resolved_engine == "qdrant"
    assert config.vectorstore.path == Path("/base/q")


def test_memory_url_needs_engine_qdrant():
    assert parse({"vectorstore": {"engine": "qdrant", "url": ":memory:"}}).vectorstore.path is None
    expected = r"vectorstore\.url: ':memory:' needs engine: qdrant \(got engine 'auto'\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"url": ":memory:"}})


def test_url_and_path_together_is_an_error():
    with pytest.raises(ConfigError, match=r"vectorstore\.path: cannot be set together with url"):
        parse({"vectorstore": {"url": "http://localhost:6333", "path": "data"}})


def test_url_with_other_scheme_is_rejected():
    expected = r"vectorstore\.url: only http:// and https:// URLs are supported \(got 'grpc://q:6334'\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"url": "grpc://q:6334"}})


@pytest.mark.parametrize("url", ["localhost:6333", "qdrant.internal:6333/api", "10.0.0.5:6333", "[::1]:6333"])
def test_url_without_scheme_is_an_error(url):
    # Regression: `url: localhost:6333` silently created a folder called "localhost:6333".
    expected = (
        rf"^config\.yaml: vectorstore\.url: '{re.escape(url)}' has no scheme "
        rf"\(write http://{re.escape(url)} for a server, or use path: for a folder\)$"
    )
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"url": url}})


@pytest.mark.parametrize(("url", "folder"), [
    ("./data", "/base/data"), ("/srv/q", "/srv/q"), ("qdrant_data", "/base/qdrant_data"), ("data/q", "/base/data/q"),
])
def test_url_that_names_a_folder_is_still_accepted(url, folder):
    assert parse({"vectorstore": {"url": url}}).vectorstore.path == Path(folder)


def test_path_that_is_a_file_is_an_error(tmp_path):
    (tmp_path / "store.db").write_text("not a folder")
    expected = rf"vectorstore\.path: '{re.escape(str(tmp_path / 'store.db'))}' is a file, not a folder"
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"path": "store.db"}}, base_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"vectorstore\.url: '.*store\.db' is a file, not a folder"):
        parse({"vectorstore": {"url": "./store.db"}}, base_dir=tmp_path)


def test_collection_name_pattern():
    expected = r"vectorstore\.collection_name: may only contain letters, digits, '_' and '-' \(got 'my docs'\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"collection_name": "my docs"}})


# --- secrets -----------------------------------------------------------------------------------


def test_secrets_do_not_appear_in_repr(monkeypatch):
    monkeypatch.setenv("RAGWIRE_TEST_SECRET", "sk-very-secret")
    config = parse({
        "llm": {"provider": "openai", "model": "gpt-4o-mini", "api_key": "${RAGWIRE_TEST_SECRET}"},
        "sources": [{"type": "s3", "bucket": "abc", "aws_secret_access_key": "sk-very-secret"}],
    })
    assert "sk-very-secret" not in repr(config)
    assert "sk-very-secret" not in str(config)
    assert config.llm.api_key.get_secret_value() == "sk-very-secret"


def test_secrets_do_not_appear_in_problem_messages(tmp_path):
    found = problems({"embeddings": {"provider": "openai", "api_key": 123456789}})
    assert found == ["embeddings.api_key: must be a string"]
    path = write(tmp_path, "embeddings:\n  provider: openai\n  api_key: sk-secret: oops\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "sk-secret" not in str(info.value)


# --- retriever ---------------------------------------------------------------------------------


def test_hybrid_search_needs_sparse_vectors():
    expected = r"retriever\.search_type: 'hybrid' needs vectorstore\.use_sparse: true"
    with pytest.raises(ConfigError, match=expected):
        parse({"vectorstore": {"use_sparse": False}})
    config = parse({"vectorstore": {"use_sparse": False}, "retriever": {"search_type": "mmr"}})
    assert config.retriever.search_type == "mmr"


# --- sources ----------------------------------------------------------------------------------------


def test_source_errors_use_list_paths_without_pydantic_tags():
    sources = [{"type": "local", "path": "d"}, {"type": "s3", "bucket": "ab", "buckett": "x"}]
    assert problems({"sources": sources}) == [
        "sources[1].bucket: must be at least 3 characters long (got 'ab')",
        "sources[1].buckett: unknown key (did you mean 'bucket'?)",
    ]


# --- other sections -----------------------------------------------------------------------------


def test_defaults():
    config = parse({})
    loader, splitter, ingestion = config.loader, config.splitter, config.ingestion
    # images are default sources where an OCR engine can read them
    images = [".bmp", ".jpeg", ".jpg", ".png", ".tif", ".tiff", ".webp"] if loader.ocr_settings().engine else []
    assert loader.extensions == DEFAULT_EXTENSIONS + images
    assert parse({"loader": {"ocr": "off"}}).loader.extensions == DEFAULT_EXTENSIONS
    assert (loader.recursive, loader.max_file_size_mb, loader.max_files) == (False, 100, 100_000)
    assert (splitter.strategy, splitter.chunk_size, splitter.chunk_overlap) == ("markdown", 1500, 300)
    assert (splitter.page_marker, splitter.max_heading_level) == ("<!-- pagebreak -->", 2)
    assert (ingestion.workers, ingestion.batch_size, ingestion.retries) == (1, 64, 2)
    assert ingestion.replace_changed and not ingestion.dedup_chunks
    store = config.vectorstore
    assert (store.engine, store.collection_name, store.use_sparse) == ("auto", "ragwire", True)
    retriever = config.retriever
    assert (retriever.search_type, retriever.top_k, retriever.rerank) == ("hybrid", 5, None)
    assert (config.logging.level, config.logging.colored, config.logging.log_file) == ("INFO", False, None)


@pytest.mark.parametrize(("provider", "expected"), [
    ("huggingface", "huggingface:sentence-transformers/all-MiniLM-L6-v2"),
    # The ONNX export of a model is recorded under the model's name: the two give the same vectors.
    ("onnx", "huggingface:sentence-transformers/all-MiniLM-L6-v2"),
    ("ollama", "ollama:nomic-embed-text"),
    ("openrouter", "openrouter:nvidia/llama-nemotron-embed-vl-1b-v2:free"),
])
def test_embedding_identity_uses_provider_default(provider, expected):
    assert parse({"embeddings": {"provider": provider}}).embeddings.identity() == expected


def test_embedding_identity_prefers_model_name_then_model():
    openai = parse({"embeddings": {"provider": "openai", "model": "text-embedding-3-large"}}).embeddings
    assert openai.identity() == "openai:text-embedding-3-large"
    both = parse({"embeddings": {"provider": "fastembed", "model": "x", "model_name": "BAAI/bge-base-en"}})
    assert both.embeddings.identity() == "fastembed:BAAI/bge-base-en"


@pytest.mark.parametrize(("section", "key", "right"), [
    ({"provider": "ollama", "model_name": "nomic-embed-text"}, "model_name", "model"),
    ({"provider": "openai", "model_name": "text-embedding-3-large"}, "model_name", "model"),
    ({"provider": "huggingface", "model": "BAAI/bge-small-en-v1.5"}, "model", "model_name"),
    ({"provider": "onnx", "model": "sentence-transformers/all-MiniLM-L6-v2"}, "model", "model_name"),
    ({"provider": "fastembed", "model": "BAAI/bge-base-en"}, "model", "model_name"),
])
def test_the_model_key_a_provider_does_not_read_is_a_did_you_mean_error(section, key, right):
    # Regression: that key was silently ignored, and the collection recorded a model other than the one loaded.
    provider = section["provider"]
    assert problems({"embeddings": section}) == [
        f"embeddings.{key}: provider {provider} reads {right}, not {key} (did you mean '{right}'?)"
    ]


def test_fastembed_reads_model_as_the_registry_name_of_a_model_name_folder(tmp_path):
    folder = tmp_path / "bge"
    folder.mkdir()
    section = parse({"embeddings": {"provider": "fastembed", "model_name": str(folder), "model": "BAAI/bge-base-en"}})
    assert section.embeddings.model_id == str(folder)


def test_one_timeout_default_for_the_embedding_and_chat_model():
    # Regression: 60 s through the config, 300 s when the factories were given a plain dict.
    config = parse({"llm": {"provider": "ollama", "model": "qwen3.5:9b"}})
    assert config.embeddings.timeout == config.llm.timeout == 60


def test_loader_extensions_are_normalised():
    assert parse({"loader": {"extensions": ["PDF", " .Md "]}}).loader.extensions == [".pdf", ".md"]


def test_unsupported_extension_lists_the_supported_ones():
    # Regression: an unsupported type was accepted and its files were then never ingested.
    supported = (r"\.bmp, \.csv, \.docx, \.htm, \.html, \.jpeg, \.jpg, \.markdown, \.md, \.pdf, \.png, \.pptx,"
                 r" \.tif, \.tiff, \.txt, \.webp, \.xlsm, \.xlsx")
    expected = rf"loader\.extensions: '\.doc' is not supported \(did you mean '\.docx'\? supported: {supported}\)"
    with pytest.raises(ConfigError, match=expected):
        parse({"loader": {"extensions": [".pdf", ".doc"]}})
    with pytest.raises(ConfigError, match=rf"sources\[0\]\.extensions: 'exe' is not supported \(supported: {supported}\)"):
        parse({"sources": [{"type": "local", "path": "docs", "extensions": ["exe"]}]})


def test_logging_level_is_case_insensitive():
    assert parse({"logging": {"level": "debug"}}).logging.level == "DEBUG"


def test_config_without_context_resolves_against_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = RagwireConfig(embeddings={"provider": "fastembed"})
    assert config.vectorstore.path == Path(os.getcwd()) / ".ragwire_data"


def test_shipped_example_config_is_valid():
    example = Path(__file__).resolve().parents[2] / "config.yaml.example"
    config = load_config(example)
    assert config.vectorstore.path == example.parent / ".ragwire_data"


def test_file_that_is_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_bytes(b"embeddings:\n  provider: \xff\n")
    with pytest.raises(ConfigError, match=r"^config\.yaml: not UTF-8 text \(byte 24\)$"):
        load_config(path)


def test_an_unset_env_var_is_an_error_even_when_everything_else_is_valid(tmp_path, monkeypatch):
    # Regression: a valid config used to load with the unset variable silently empty.
    monkeypatch.delenv("RAGWIRE_TEST_QDRANT_URL", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text(
        "embeddings:\n  provider: huggingface\n"
        "vectorstore:\n  url: \"${RAGWIRE_TEST_QDRANT_URL}\"\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"vectorstore.url: environment variable RAGWIRE_TEST_QDRANT_URL is not set"):
        load_config(path)


def test_a_bare_sentence_transformers_name_records_the_same_identity(tmp_path):
    short = parse_config({"embeddings": {"provider": "huggingface", "model_name": "all-MiniLM-L6-v2"}}, base_dir=tmp_path)
    full = parse_config(
        {"embeddings": {"provider": "huggingface", "model_name": "sentence-transformers/all-MiniLM-L6-v2"}},
        base_dir=tmp_path,
    )
    assert short.embeddings.identity() == full.embeddings.identity()


def test_hybrid_defaults_are_the_measured_best():
    retriever = parse({}).retriever
    assert (retriever.fusion, retriever.fetch_k, retriever.hnsw_ef, retriever.exact) == ("dbsf", 30, 128, False)
    fusion = hybrid_fusion(retriever)
    assert (fusion.method, fusion.dense_limit, fusion.sparse_limit, fusion.weights) == ("dbsf", 30, 30, None)


def test_branch_prefetch_and_weights_reach_the_fusion():
    retriever = parse({"retriever": {"fusion": "rrf", "rrf_k": 20, "dense_prefetch": 50, "sparse_weight": 0.5}}).retriever
    fusion = hybrid_fusion(retriever)
    assert (fusion.method, fusion.k, fusion.dense_limit, fusion.sparse_limit, fusion.weights) == (
        "rrf", 20, 50, 30, (1.0, 0.5))


def test_branch_weights_with_dbsf_are_refused():
    with pytest.raises(ConfigError, match=r"retriever: dense_weight and sparse_weight apply to fusion: rrf only"):
        parse({"retriever": {"fusion": "dbsf", "dense_weight": 2}})


def test_a_misspelt_fusion_gets_a_suggestion():
    with pytest.raises(ConfigError, match=r"retriever\.fusion: .*did you mean 'dbsf'"):
        parse({"retriever": {"fusion": "dbfs"}})


def test_overlapping_local_sources_are_refused_at_load(tmp_path):
    # Guards: `src` and `src/sub` (or one folder under two names) stored every shared file twice, silently.
    (tmp_path / "src" / "sub").mkdir(parents=True)
    data = {"embeddings": {"provider": "onnx"},
            "sources": [{"type": "local", "path": "src", "name": "all"},
                        {"type": "local", "path": "src/sub", "name": "part"}]}
    with pytest.raises(ConfigError, match=r"sources: entries 0 and 1 overlap .* stored twice"):
        parse_config(data, base_dir=tmp_path)
    data["sources"][1]["path"] = "src"
    with pytest.raises(ConfigError, match="overlap"):
        parse_config(data, base_dir=tmp_path)
    data["sources"][1]["path"] = "src-archive"  # a shared prefix is not an overlap
    assert len(parse_config(data, base_dir=tmp_path).sources) == 2


@pytest.mark.skipif(os.geteuid() == 0 and not __import__("shutil").which("setpriv"),
                    reason="root without setpriv: permission bits do not bind")
@pytest.mark.parametrize("locked", ["file", "folder"])
def test_an_unreadable_config_is_one_line_not_a_traceback(tmp_path, locked):
    # Guards: an unreadable config.yaml (or one in an unsearchable folder) printed a Python traceback.
    import subprocess
    import sys

    folder = tmp_path / "conf"
    folder.mkdir()
    cfg = folder / "config.yaml"
    cfg.write_text("embeddings:\n  provider: onnx\n")
    target = cfg if locked == "file" else folder
    cmd = [sys.executable, "-m", "ragwire.cli", "stats", "--config", str(cfg)]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", *cmd]
    target.chmod(0)
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    finally:
        target.chmod(0o755)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.strip() == (f"error: config.yaml: cannot be read: permission denied for {cfg} "
                                  "(or a folder above it); run as a user who may read it, or make it readable")
