"""Test isolation: no provider keys, no hub downloads, every writable path under tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
    """One RAGWIRE_HOME per session, so the ONNX export is built once, not once per test."""
    return tmp_path_factory.mktemp("ragwire_home")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path, ragwire_home):
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
    yield
