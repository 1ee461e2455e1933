"""Reading config.yaml: YAML with duplicate keys refused, ``${VAR}`` expansion, then validation."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ragwire.config.problems import _describe, _show
from ragwire.config.root import RagwireConfig
from ragwire.errors import ConfigError, NotFoundError

S = TypeVar("S", bound=BaseModel)


def load_config(path: str | Path) -> RagwireConfig:
    """Read and validate a config.yaml.

    Args:
        path: The config file. Relative paths inside it resolve against its folder.

    Returns:
        The validated configuration, with ``source`` set to the file.

    Raises:
        NotFoundError: The file does not exist (a FileNotFoundError).
        ConfigError: The file is not valid YAML or not a valid configuration; one line per problem.
    """
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(f"config file not found: {path} (run `ragwire init` to write a commented one)") from None
    except IsADirectoryError:
        raise NotFoundError(f"config file not found: {path} is a folder (name the config.yaml inside it)") from None
    except PermissionError:
        raise ConfigError([f"cannot be read: permission denied for {path} (or a folder above it); "
                           "run as a user who may read it, or make it readable"], path.name) from None
    except UnicodeDecodeError as exc:
        raise ConfigError([f"not UTF-8 text (byte {exc.start})"], path.name) from None
    except OSError as exc:
        raise ConfigError([f"cannot be read: {exc.strerror or exc} ({path})"], path.name) from None
    try:
        data, duplicates = _read_yaml(text)
    except yaml.MarkedYAMLError as exc:
        # only the mark and the problem: the full text quotes the line, which may hold a secret
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError([f"invalid YAML{where}: {exc.problem or exc.context}"], path.name) from None
    except yaml.YAMLError as exc:
        raise ConfigError([f"invalid YAML: {type(exc).__name__}"], path.name) from None
    if duplicates:
        raise ConfigError(duplicates, path.name)
    if data is None:
        raise ConfigError(
            ["the file is empty: it needs at least an 'embeddings' section with a 'provider'"], path.name
        )
    # The folder the user sees the file in, even when it is a symlink (config.yaml.example
    # links to the packaged template): relative paths resolve against that folder.
    located = Path(os.path.abspath(path))
    config = parse_config(data, base_dir=located.parent, source=path.name)
    config._source = located
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
    expanded = _expand(data, "", problems, unset)
    try:
        config = RagwireConfig.model_validate(expanded, context={"base_dir": Path(base_dir)})
        if not problems:
            return config
    except ValidationError as exc:
        for line in (_describe(err) for err in exc.errors()):
            # a key whose env var is unset was already reported; its "" would only add noise
            if not any(line.startswith((f"{p}:", f"{p}.", f"{p}[")) for p in unset):
                problems.append(line)
    raise ConfigError(problems, source)


def parse_section(model: type[S], name: str, data: Mapping[str, Any], *, expand: bool = True) -> S:
    """Validate one section given on its own, e.g. the dict passed to ``get_embedding``.

    The same model, defaults and one-line problems as in a config file; relative paths
    resolve against the current folder.

    Args:
        model: The section's model, e.g. ``EmbeddingsConfig``.
        name: The section's key in config.yaml, which prefixes each problem.
        data: The raw mapping.
        expand: Expand ``${VAR}`` references (off for values that were expanded already).

    Raises:
        ConfigError: Every problem found, one line each.
    """
    problems: list[str] = []
    unset: list[str] = []
    raw = _expand(dict(data), name, problems, unset) if expand else dict(data)
    try:
        section = model.model_validate(raw)
        if not problems:
            return section
    except ValidationError as exc:
        for err in exc.errors():
            line = _describe({**err, "loc": (name, *err["loc"])})
            if not any(line.startswith((f"{p}:", f"{p}.", f"{p}[")) for p in unset):
                problems.append(line)
    raise ConfigError(problems)


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


def _expand(value: object, path: str, problems: list[str], unset: list[str]) -> object:
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
