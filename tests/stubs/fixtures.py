"""Pytest fixtures for the stubs: import them in a test module or list this in pytest_plugins."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.stubs.server import StubServer


@pytest.fixture
def stub_server() -> Iterator[StubServer]:
    """A running StubServer (16-d embeddings), stopped after the test."""
    with StubServer() as server:
        yield server
