"""Test isolation (no provider keys, no hub downloads, every writable path under tmp_path), the shared
test doubles (a word-hashing embedder, a scripted chat model) and the shared expensive fixture:
examples/docs ingested once per run, copied for each test or module that uses it."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "docs"
CORPUS = REPO / "tests" / "data" / "corpus"

_PROVIDER_KEYS = (
    "OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY", "GOOGLE_API_KEY",
    "COHERE_API_KEY", "CO_API_KEY", "QDRANT_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN", "AWS_PROFILE",
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def ragwire_home(tmp_path_factory) -> Path:
    """One RAGWIRE_HOME per session, so the ONNX export is built once, not once per test.

    The exports `make install` built (`ragwire model prepare`) are copied in: ragwire checks an
    export against its model's weights before using it and builds a missing or stale one anew.
    """
    from ragwire.providers.onnx_export import ragwire_home as user_home

    home = tmp_path_factory.mktemp("ragwire_home")
    built = user_home() / "onnx"
    if built.is_dir():
        shutil.copytree(built, home / "onnx", ignore=shutil.ignore_patterns("hashes.json", "*.tmp*", ".*"))
    return home


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ragwire_home: Path) -> None:
    """The isolated environment of a test; a fixture wider than a test applies it itself."""
    for key in _PROVIDER_KEYS:
        monkeypatch.delenv(key, raising=False)
    for key in list(os.environ):
        if key.startswith("RAGWIRE_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    monkeypatch.setenv("RAGWIRE_HOME", str(ragwire_home))


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path, ragwire_home):
    isolate(monkeypatch, tmp_path, ragwire_home)
    yield


def copy_sparse(source: Path, dest: Path) -> None:
    """Copy a folder holding an embedded store (``dest`` must not exist), keeping its files sparse:
    the engine creates them at full size (~300 MB for examples/docs) but writes a few MB of them,
    and shutil.copytree would write every byte."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-R", "--sparse=always", str(source), str(dest)], check=True)


@dataclass(frozen=True)
class IngestedCorpus:
    """A store built once per run; tests never open it, only copies of it (``copy``).

    The stored sources point at ``docs``, which no test changes: a test that edits or
    re-syncs files needs a corpus of its own.
    """

    docs: Path
    config: Path
    stats: dict[str, Any]

    def copy(self, dest: Path) -> Path:
        """config.yaml in ``dest`` over a copy of the store in ``dest / "store"``: its writes are its own."""
        settings = yaml.safe_load(self.config.read_text(encoding="utf-8"))
        copy_sparse(Path(settings["vectorstore"]["path"]), dest / "store")
        settings["vectorstore"]["path"] = str(dest / "store")
        dest.mkdir(parents=True, exist_ok=True)
        path = dest / "config.yaml"
        path.write_text(yaml.safe_dump(settings), encoding="utf-8")
        return path


def ingest_once(root: Path, ragwire_home: Path, source: Path) -> IngestedCorpus:
    """``source`` copied to ``root / "docs"`` and ingested by ``ragwire ingest --json`` with the
    integration tests' config (packaged MiniLM, embedded engine), in the isolated environment."""
    from click.testing import CliRunner

    from ragwire.cli import main
    from ragwire.store import close_all

    from .integration.helpers import write_config

    docs = root / "docs"
    shutil.copytree(source, docs)
    config = write_config(root)
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, root, ragwire_home)
        done = CliRunner().invoke(main, ["ingest", str(docs), "--config", str(config), "--json"],
                                  catch_exceptions=False)
    assert done.exit_code == 0, done.output
    # Let go of the store now (not after hold_open_s), so it can be copied whole.
    close_all()
    return IngestedCorpus(docs, config, json.loads(done.stdout))


@pytest.fixture(scope="session")
def examples_store(tmp_path_factory, ragwire_home) -> IngestedCorpus:
    """examples/docs ingested once per run; use ``examples_store.copy(folder)`` (or ``examples_config``)."""
    return ingest_once(tmp_path_factory.mktemp("examples"), ragwire_home, EXAMPLES)


@pytest.fixture
def examples_config(examples_store, tmp_path) -> Path:
    """config.yaml of this test's own copy of the examples/docs store."""
    return examples_store.copy(tmp_path)


@dataclass(frozen=True)
class ScoredPassage:
    """A passage of a numbered source with its similarity to the question, as the typed step reads a candidate
    (``ragwire.answer.passages.Scored``)."""

    source: int
    passage: Any  # ragwire.answer.passages.Passage
    score: float = 0.9
    ranked: float = 0.9
    literal: bool = False  # holds a value the question gives that tells passages apart ("6 kg", "size M")


class WordEmbedding:
    """Bag of words hashed with SHA-256 into 64 dimensions: shared words make vectors close."""

    model_name = "words-64"

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * 64
        for word in re.findall(r"[a-z0-9-]+", text.lower()):
            vec[hashlib.sha256(word.encode()).digest()[0] % 64] += 1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


class ScriptedChat(GenericFakeChatModel):
    """A LangChain chat model that replies from a script, in order, and keeps every message list
    it was sent (``seen``); a call past the end of the script fails."""

    seen: list = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted_chat(*replies: Any) -> ScriptedChat:
    """A ScriptedChat replying ``replies`` (strings or AIMessages) one call each."""
    return ScriptedChat(messages=iter(replies), seen=[])
