"""Typed configuration for every section of config.yaml.

``load_config`` reads the file, expands ``${VAR}`` references and reports every problem at once.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ragwire.errors import ConfigError, did_you_mean
from ragwire.loaders.formats import SUPPORTED_EXTENSIONS

DEFAULT_EXTENSIONS = [".pdf", ".docx", ".xlsx", ".pptx", ".txt", ".md", ".markdown", ".html", ".htm", ".csv"]

DEFAULT_EMBEDDING_MODELS = {
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
    "openrouter": "nvidia/llama-nemotron-embed-vl-1b-v2:free",
    "google": "models/embedding-001",
    "huggingface": "sentence-transformers/all-MiniLM-L6-v2",
    "fastembed": "BAAI/bge-small-en-v1.5",
    "onnx": "sentence-transformers/all-MiniLM-L6-v2",
}
DEFAULT_RERANK_MODELS = {"cross_encoder": "BAAI/bge-reranker-base", "cohere": "rerank-v3.5"}


# --- helpers shared by the sections --------------------------------------------------------


def _base_dir(info: ValidationInfo) -> Path:
    # parse_config passes the config file's folder; models built in code fall back to cwd
    return Path((info.context or {}).get("base_dir") or Path.cwd())


def _resolve(value: Path, info: ValidationInfo) -> Path:
    # abspath normalises ".." without following symlinks, unlike Path.resolve()
    return Path(os.path.abspath(_base_dir(info) / value.expanduser()))


def _resolve_if_local(value: str, info: ValidationInfo) -> str:
    # model ids like "BAAI/bge-small-en-v1.5" look like relative paths, so only explicit ones resolve
    if not value.startswith(("./", "../", "~")):
        return value
    return str(_resolve(Path(value), info))


def _is_http(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


# `localhost:6333`, `qdrant.internal:6333/x` or `[::1]:6333`: a server address missing its scheme,
# which would otherwise be taken for a relative folder name and silently create that folder
_HOST_PORT = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d+")


def _normalise_extensions(values: list[str]) -> list[str]:
    result = []
    for raw in values:
        ext = raw.strip().lower()
        if not ext.strip("."):
            raise ValueError(f"extensions must not be empty (got {values!r})")
        ext = ext if ext.startswith(".") else f".{ext}"
        if ext not in SUPPORTED_EXTENSIONS:
            # an unsupported type would be walked past silently, so no file of it is ever ingested
            close = difflib.get_close_matches(ext, SUPPORTED_EXTENSIONS, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ValueError(f"{raw!r} is not supported ({hint}supported: {', '.join(SUPPORTED_EXTENSIONS)})")
        result.append(ext)
    return result


def _not_a_file(path: Path) -> None:
    if path.is_file():
        raise ValueError(f"{str(path)!r} is a file, not a folder (point it at a folder; a missing one is created)")


def _problem(at: str, message: str) -> PydanticCustomError:
    """An error for key ``at`` below the model that raises it (pydantic would point at the model)."""
    return PydanticCustomError("ragwire", "{message}", {"at": at, "message": message})


# a path in the config file, resolved against the file's folder
ConfigPath = Annotated[Path, AfterValidator(_resolve)]
# a model id, or a local model folder when written as ./x, ../x or ~/x
ModelName = Annotated[str, AfterValidator(_resolve_if_local)]
Extensions = Annotated[list[str], AfterValidator(_normalise_extensions)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: Any) -> Any:
        # `${VAR:-}` expands to "", which for an optional key means "not set"
        if not isinstance(data, dict):
            return data
        optional = {name for name, field in cls.model_fields.items() if field.default is None}
        blank = {k for k, v in data.items() if k in optional and isinstance(v, str) and not v.strip()}
        return {k: None if k in blank else v for k, v in data.items()}


# --- sections ---------------------------------------------------------------------------------


class LoaderConfig(_Section):
    """`loader:` which files are read and how the folder walk behaves."""

    extensions: Extensions = Field(default_factory=lambda: list(DEFAULT_EXTENSIONS))
    recursive: bool = False
    max_file_size_mb: float = Field(100, gt=0)
    include_hidden: bool = False
    follow_symlinks: bool = False
    max_files: int = Field(100_000, ge=1)
    # Zip-based Office files (docx/xlsx/pptx) are checked before conversion: a small
    # file that inflates to gigabytes is refused instead of exhausting memory.
    max_uncompressed_mb: float = Field(512, gt=0)
    max_compression_ratio: float = Field(100, gt=1)
    # Seconds one file's conversion may take; a stalled converter fails only that file.
    timeout_s: float = Field(300, gt=0)


class SplitterConfig(_Section):
    """`splitter:` how text is cut into chunks."""

    strategy: Literal["markdown", "recursive", "code", "page"] = "markdown"
    # 1500/300 measured best on SciFact and level on examples/docs (docs/evaluation.md)
    chunk_size: int = Field(1500, gt=0)
    chunk_overlap: int = Field(300, ge=0)
    separators: list[str] | None = None
    page_marker: str = "<!-- pagebreak -->"
    max_heading_level: int = Field(2, ge=1, le=6)

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        size = info.data.get("chunk_size")  # absent when chunk_size itself was invalid
        if size is not None and value >= size:
            raise ValueError(f"must be smaller than chunk_size (got {value} >= {size})")
        return value


class IngestionConfig(_Section):
    """`ingestion:` parallelism, batching and retries of ingest."""

    workers: int = Field(1, ge=1)
    batch_size: int = Field(64, ge=1)
    retries: int = Field(2, ge=0)
    retry_backoff: float = Field(0.5, ge=0)
    replace_changed: bool = True
    dedup_chunks: bool = False


class EmbeddingsConfig(_Section):
    """`embeddings:` the dense embedding model (required)."""

    provider: Literal["ollama", "openai", "openrouter", "google", "huggingface", "fastembed", "onnx"]
    model: str | None = None
    model_name: ModelName | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    batch_size: int | None = Field(None, ge=1)
    dimensions: int | None = Field(None, ge=1)
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    encode_kwargs: dict[str, Any] = Field(default_factory=dict)
    timeout: float = Field(60, gt=0)

    def identity(self) -> str:
        """Return the name recorded in the collection, e.g. ``"fastembed:BAAI/bge-small-en-v1.5"``.

        A sentence-transformers model is recorded as ``huggingface:<model id or folder>``
        whichever runtime runs it: its ONNX export (``provider: onnx``) is verified to give
        the same vectors when it is built, so a collection built with one opens with the other.
        """
        name = self.model_name or self.model or DEFAULT_EMBEDDING_MODELS[self.provider]
        provider = self.provider
        if provider == "onnx":
            provider, name = "huggingface", _onnx_source(name)
        if provider == "huggingface" and "/" not in name and not Path(name).exists():
            # sentence-transformers resolves bare names under its own namespace: the same model
            name = f"sentence-transformers/{name}"
        return f"{provider}:{name}"


def _onnx_source(name: str) -> str:
    """The model an ONNX export folder was made from (its manifest's ``source``), else ``name``."""
    try:
        manifest = json.loads((Path(name).expanduser() / "ragwire_onnx.json").read_text())
    except (OSError, ValueError):
        return name
    source = manifest.get("source") if isinstance(manifest, dict) else None
    return source if isinstance(source, str) and source else name


class LLMConfig(_Section):
    """`llm:` the chat model for metadata extraction, filters and answers."""

    provider: Literal["ollama", "openai", "openrouter", "google", "groq", "anthropic"]
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key: SecretStr | None = None
    num_ctx: int | None = Field(None, ge=1)
    temperature: float = Field(0.0, ge=0)
    timeout: float = Field(60, gt=0)
    max_tokens: int | None = Field(None, ge=1)


class MetadataConfig(_Section):
    """`metadata:` LLM metadata extraction, driven by a metadata.yaml schema."""

    enabled: bool = True
    config_file: ConfigPath | None = None
    max_chars: int = Field(10_000, ge=1)


class VectorstoreConfig(_Section):
    """`vectorstore:` where the collection lives: a local folder, a server or memory."""

    engine: Literal["auto", "edge", "qdrant"] = "auto"
    url: str | None = None
    path: ConfigPath | None = None
    api_key: SecretStr | None = None
    collection_name: str = "ragwire"
    use_sparse: bool = True
    force_recreate: bool = False
    timeout: float = Field(30, gt=0)
    optimize_after_points: int = Field(1000, ge=0)
    # Seconds the store stays open after a call, so a loop of calls opens it once.
    hold_open_s: float = Field(2.0, ge=0)
    # Seconds any call waits for another process to let go of an embedded store's folder.
    lock_wait_s: float = Field(10.0, ge=0)
    # Seconds a write run (ingest, delete, sync) waits for another one to finish.
    write_wait_s: float = Field(10.0, ge=0)
    # On a server engine: seconds a writer lease outlives its holder's last write.
    lease_ttl_s: float = Field(60.0, gt=0)

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        engine = info.data.get("engine")
        if value is None or engine is None:  # engine None: it was invalid and is reported already
            return value
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", value) and not _is_http(value):
            raise ValueError(f"only http:// and https:// URLs are supported (got {value!r})")
        if _HOST_PORT.match(value):
            raise ValueError(
                f"{value!r} has no scheme (write http://{value} for a server, or use path: for a folder)"
            )
        if value == ":memory:" and engine != "qdrant":
            raise ValueError(f"':memory:' needs engine: qdrant (got engine {engine!r})")
        if _is_http(value) and engine == "edge":
            raise ValueError("engine 'edge' is embedded and cannot use a server URL (use qdrant or auto)")
        return value

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None and info.data.get("url") is not None:
            raise ValueError("cannot be set together with url (url is for a server, path for a folder)")
        if value is not None:
            _not_a_file(value)
        return value

    @field_validator("collection_name")
    @classmethod
    def _check_collection_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", value):
            raise ValueError(f"may only contain letters, digits, '_' and '-' (got {value!r})")
        return value

    @model_validator(mode="after")
    def _settle_location(self, info: ValidationInfo) -> VectorstoreConfig:
        # the upstream config format put local folders in `url`; treat them as `path`
        if self.url is not None and not self.is_remote and self.url != ":memory:":
            folder = _resolve(Path(self.url), info)
            try:
                _not_a_file(folder)
            except ValueError as exc:
                raise _problem("url", str(exc)) from None
            self.path, self.url = folder, None
        if self.url is None and self.path is None:
            self.path = _base_dir(info) / ".ragwire_data"
        return self

    @property
    def is_remote(self) -> bool:
        """True when the store is a Qdrant server reached over HTTP(S)."""
        return self.url is not None and _is_http(self.url)

    @property
    def resolved_engine(self) -> Literal["edge", "qdrant"]:
        """``"qdrant"`` for a server, qdrant-client's local mode or ``:memory:``; else ``"edge"``."""
        return "qdrant" if self.is_remote or self.engine == "qdrant" else "edge"


class RerankConfig(_Section):
    """`retriever.rerank:` second-stage reranking; other keys pass through to the provider."""

    # unknown keys are the provider's own options (batch_size, device, ...), so they are kept
    model_config = ConfigDict(extra="allow")

    provider: Literal["cross_encoder", "cohere"] = "cross_encoder"
    model: ModelName | None = None
    fetch_k: int | None = Field(None, ge=1)
    enabled: bool = True
    api_key: SecretStr | None = None
    base_url: str | None = None

    @model_validator(mode="after")
    def _fill_model(self) -> RerankConfig:
        for key in self.model_extra or {}:
            # a near-miss of a known key is a typo, not a provider option
            close = difflib.get_close_matches(key, type(self).model_fields, n=1, cutoff=0.85)
            if close:
                raise PydanticCustomError("unknown_key", "unknown key", {"key": key})
        if self.model is None:
            self.model = DEFAULT_RERANK_MODELS[self.provider]
        return self

    @property
    def options(self) -> dict[str, Any]:
        """The extra keys, passed through to the provider."""
        return dict(self.model_extra or {})

    def effective_fetch_k(self, top_k: int) -> int:
        """Return how many candidates to fetch before reranking down to ``top_k``."""
        return max(self.fetch_k or max(4 * top_k, 20), top_k)


class RetrieverConfig(_Section):
    """`retriever:` how ``retrieve()`` searches."""

    search_type: Literal["similarity", "mmr", "hybrid", "keyword"] = "hybrid"
    top_k: int = Field(5, ge=1)
    auto_filter: bool = False
    # mmr: candidates MMR picks from; hybrid: each branch's candidates unless set below
    fetch_k: int = Field(30, ge=1)
    mmr_lambda: float = Field(0.5, ge=0, le=1)
    # dbsf beat rrf on both measured golden sets (docs/evaluation.md)
    fusion: Literal["rrf", "dbsf"] = "dbsf"
    rrf_k: int = Field(60, ge=1)
    dense_prefetch: int | None = Field(None, ge=1)
    sparse_prefetch: int | None = Field(None, ge=1)
    dense_weight: float = Field(1.0, ge=0)
    sparse_weight: float = Field(1.0, ge=0)
    # the dense (HNSW) search: candidates explored per query, or an exact scan
    hnsw_ef: int | None = Field(128, ge=1)
    exact: bool = False
    rerank: RerankConfig | None = None

    @model_validator(mode="after")
    def _weights_need_rrf(self) -> RetrieverConfig:
        if self.fusion == "dbsf" and (self.dense_weight, self.sparse_weight) != (1.0, 1.0):
            # the engines take branch weights for RRF only; ignoring them would mislead
            raise PydanticCustomError(
                "weights_need_rrf",
                "dense_weight and sparse_weight apply to fusion: rrf only (the engine's dbsf takes no weights)",
            )
        if self.dense_weight == 0 and self.sparse_weight == 0:
            raise PydanticCustomError("weights_zero", "dense_weight and sparse_weight cannot both be 0")
        return self


class LocalSource(_Section):
    """A `sources:` entry with ``type: local``: a folder or a single file."""

    type: Literal["local"] = "local"
    path: ConfigPath
    recursive: bool = False
    extensions: Extensions | None = None
    name: str | None = None

    @field_validator("path", mode="before")
    @classmethod
    def _path_not_blank(cls, value: Any) -> Any:
        # an empty path would silently mean "the config's folder"
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        return value


class S3Source(_Section):
    """A `sources:` entry with ``type: s3``: a bucket (and prefix) mirrored into ``cache_dir``."""

    type: Literal["s3"] = "s3"
    bucket: str = Field(min_length=3)
    prefix: str = ""
    cache_dir: ConfigPath = Field(Path(".ragwire_cache"), validate_default=True)
    region: str | None = None
    endpoint_url: str | None = None
    aws_access_key_id: str | None = None
    aws_secret_access_key: SecretStr | None = None
    extensions: Extensions | None = None
    name: str | None = None


SourceConfig = Annotated[Union[LocalSource, S3Source], Field(discriminator="type")]


class GenerationConfig(_Section):
    """`generation:` the context budget and prompt of ``query()``."""

    max_context_chars: int = Field(12_000, ge=500)
    system_prompt: str | None = None

    @field_validator("system_prompt")
    @classmethod
    def _keeps_sentinel(cls, value: str | None) -> str | None:
        if value is not None and "{sentinel}" not in value:
            raise ValueError(
                "must contain {sentinel}: it is replaced with the refusal token, "
                "and without it refusal detection stops working"
            )
        return value


class LoggingConfig(_Section):
    """`logging:` level and handlers set up by the CLI."""

    level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    colored: bool = False
    console_output: bool = True
    log_file: ConfigPath | None = None

    @field_validator("level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value


class RagwireConfig(_Section):
    """The whole config.yaml. Build it with `load_config` or `parse_config`."""

    loader: LoaderConfig = Field(default_factory=LoaderConfig)
    splitter: SplitterConfig = Field(default_factory=SplitterConfig)
    ingestion: IngestionConfig = Field(default_factory=IngestionConfig)
    embeddings: EmbeddingsConfig
    llm: LLMConfig | None = None
    metadata: MetadataConfig = Field(default_factory=MetadataConfig)
    vectorstore: VectorstoreConfig = Field(default_factory=VectorstoreConfig)
    retriever: RetrieverConfig = Field(default_factory=RetrieverConfig)
    sources: list[SourceConfig] = Field(default_factory=list)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)

    # set by load_config, never read from the YAML
    _source: Path | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _fill_sections(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        # an empty section (`ingestion:` with every key commented out) means "use the defaults";
        # absent ones are validated from {} too, so that paths resolve against the config's folder
        data = {k: v for k, v in data.items() if v is not None}
        for name, field in cls.model_fields.items():
            if name not in data and field.default_factory is not None and name != "sources":
                data[name] = {}
        return data

    @model_validator(mode="after")
    def _check_sections_agree(self) -> RagwireConfig:
        if self.retriever.search_type == "hybrid" and not self.vectorstore.use_sparse:
            raise _problem(
                "retriever.search_type",
                "'hybrid' needs vectorstore.use_sparse: true (enable it, or choose similarity or mmr)",
            )
        if self.retriever.auto_filter and self.llm is None:
            raise _problem("retriever.auto_filter", "needs an llm section (filters are extracted by the LLM)")
        return self

    @property
    def source(self) -> Path | None:
        """The config file this was loaded from, or None when built from a dict."""
        return self._source


# --- loading ----------------------------------------------------------------------------------


def load_config(path: str | Path) -> RagwireConfig:
    """Read and validate a config.yaml.

    Args:
        path: The config file. Relative paths inside it resolve against its folder.

    Returns:
        The validated configuration, with ``source`` set to the file.

    Raises:
        FileNotFoundError: The file does not exist.
        ConfigError: The file is not valid YAML or not a valid configuration; one line per problem.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"config file not found: {path} (copy config.yaml.example to start)")
    try:
        data, duplicates = _read_yaml(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        # only the mark and the problem: the full text quotes the line, which may hold a secret
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError([f"invalid YAML{where}: {exc.problem or exc.context}"], path.name) from None
    except yaml.YAMLError as exc:
        raise ConfigError([f"invalid YAML: {type(exc).__name__}"], path.name) from None
    except UnicodeDecodeError as exc:
        raise ConfigError([f"not UTF-8 text (byte {exc.start})"], path.name) from None
    if duplicates:
        raise ConfigError(duplicates, path.name)
    if data is None:
        raise ConfigError(
            ["the file is empty: it needs at least an 'embeddings' section with a 'provider'"], path.name
        )
    config = parse_config(data, base_dir=path.resolve().parent, source=path.name)
    config._source = path.resolve()
    return config


def parse_config(data: dict[str, Any], *, base_dir: Path, source: str = "config.yaml") -> RagwireConfig:
    """Validate a config already read from YAML.

    Args:
        data: The raw mapping; ``${VAR}`` references are expanded here.
        base_dir: The folder relative paths resolve against.
        source: The file name that prefixes each problem line.

    Returns:
        The validated configuration.

    Raises:
        ConfigError: Every problem found, env-var and validation ones together.
    """
    if not isinstance(data, dict):
        raise ConfigError([f"must be a mapping of sections (got {_show(data)})"], source)
    problems: list[str] = []
    unset: list[str] = []
    data = _expand(data, "", problems, unset)
    try:
        config = RagwireConfig.model_validate(data, context={"base_dir": Path(base_dir)})
        if not problems:
            return config
    except ValidationError as exc:
        for line in (_describe(err) for err in exc.errors()):
            # a key whose env var is unset was already reported; its "" would only add noise
            if not any(line.startswith((f"{p}:", f"{p}.", f"{p}[")) for p in unset):
                problems.append(line)
    raise ConfigError(problems, source)


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that reports duplicated mapping keys instead of silently keeping the last one."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[str] = []
        self._paths: dict[int, str] = {}

    def construct_document(self, node: yaml.Node) -> Any:
        # the mapping constructor sees one node at a time; name each node's dotted path first
        self._name_paths(node, "")
        return super().construct_document(node)

    def _name_paths(self, node: yaml.Node, path: str) -> None:
        if id(node) in self._paths:  # an alias, or a recursive anchor
            return
        self._paths[id(node)] = path
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                self._name_paths(value_node, f"{path}.{key}" if path else str(key))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._name_paths(item, f"{path}[{i}]")

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        # checked before SafeLoader flattens `<<:` merges: a key overriding a merged one is intended
        first_line: dict[Any, int] = {}
        parent = self._paths.get(id(node), "")
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in first_line:
                where = f"{parent}.{key}" if parent else str(key)
                self.duplicates.append(
                    f"{where}: duplicate key at line {line} (first at line {first_line[key]}); "
                    "YAML would silently keep only the last one, so merge them into one"
                )
            else:
                first_line[key] = line
        return super().construct_mapping(node, deep=deep)


def _read_yaml(text: str) -> tuple[Any, list[str]]:
    """Parse YAML text; also return one problem line per duplicated key."""
    loader = _StrictLoader(text)
    try:
        return loader.get_single_data(), loader.duplicates
    finally:
        loader.dispose()


_VAR = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def _expand(value: Any, path: str, problems: list[str], unset: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _expand(v, f"{path}.{k}" if path else str(k), problems, unset) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, f"{path}[{i}]", problems, unset) for i, v in enumerate(value)]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if default is not None and not found:
            return default
        if found is None:
            problems.append(
                f"{path}: environment variable {name} is not set (export it, or write ${{{name}:-default}})"
            )
            unset.append(path)
            return ""
        return found

    return _VAR.sub(substitute, value)


# --- turning pydantic errors into one line each -------------------------------------------------

_MUST_BE = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping of keys",
    "model_attributes_type": "a mapping of keys",
    "path_type": "a path",
}
_SECRET_KEYS = {"api_key", "aws_secret_access_key"}
_BOUNDS = {
    "greater_than": ("gt", "greater than"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "less_than_equal": ("le", "at most"),
}


def _describe(err: Any) -> str:
    kind, loc, ctx = err["type"], tuple(err["loc"]), err.get("ctx") or {}
    if kind in ("ragwire", "unknown_key"):
        loc += tuple(ctx.get("at", ctx.get("key", "")).split("."))
    path, _ = _walk(loc)
    key = str(loc[-1]) if loc else ""
    # secrets never appear in a message, not even a wrong-typed one
    got = "" if key in _SECRET_KEYS else f" (got {_show(err['input'])})"

    if kind in ("extra_forbidden", "unknown_key"):
        _, owners = _walk(loc[:-1])
        known = sorted({f for m in owners for f in m.model_fields})
        return f"{path}: unknown key{did_you_mean(key, known)}"
    if kind == "literal_error":
        return f"{path}: {_choice_problem(key, err['input'], _quoted(ctx['expected']))}"
    if kind == "union_tag_invalid":
        tags = ", ".join(sorted(_quoted(ctx["expected_tags"])))
        return f"{path}.type: {_show(ctx['tag'])} is not a known source type (choose from: {tags})"
    if kind == "union_tag_not_found":
        return f"{path}.type: missing (every source needs a type: local or s3)"
    if kind == "missing":
        if loc == ("embeddings",):
            return "embeddings: required section is missing (add it with at least a provider, e.g. fastembed)"
        return f"{path}: required key is missing"
    if kind in _MUST_BE:
        return f"{path}: must be {_MUST_BE[kind]}{got}"
    if kind in _BOUNDS:
        name, words = _BOUNDS[kind]
        return f"{path}: must be {words} {_show(ctx[name])}{got}"
    if kind == "string_too_short":
        return f"{path}: must be at least {ctx['min_length']} characters long{got}"
    if kind in ("value_error", "assertion_error"):
        return f"{path}: {ctx['error']}"
    if kind == "ragwire":
        return f"{path}: {ctx['message']}"
    return f"{path}: {err['msg']}"


def _quoted(text: str) -> list[str]:
    # pydantic lists the allowed values as "'a', 'b' or 'c'"
    return re.findall(r"'([^']*)'", text)


def _choice_problem(key: str, value: Any, choices: list[str]) -> str:
    choices = sorted(choices)
    hint = ""
    if isinstance(value, str):
        close = difflib.get_close_matches(value.lower(), choices, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
    what = "a known provider" if key == "provider" else f"a valid {key.replace('_', ' ')}"
    return f"{_show(value)} is not {what} ({hint}choose from: {', '.join(choices)})"


def _walk(loc: tuple[Any, ...]) -> tuple[str, list[type[BaseModel]]]:
    """Turn a pydantic location into a dotted key path, plus the models the location points into."""
    path = ""
    models: list[type[BaseModel]] = [RagwireConfig]
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        field = next((m.model_fields[part] for m in models if part in m.model_fields), None)
        tagged = [m for m in models if _source_tag(m) == part]
        if field is None and tagged:
            models = tagged  # pydantic puts a union member's tag into the location; users never wrote it
            continue
        path = f"{path}.{part}" if path else str(part)
        models = _models_in(field.annotation) if field else []
    return path, models


def _source_tag(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("type")
    return get_args(field.annotation)[0] if field is not None else None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and get_origin(annotation) is None and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # pydantic reports the bound of `gt=0` on a float field as 0.0
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."
