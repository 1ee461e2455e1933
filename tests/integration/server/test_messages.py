"""What a web user reads when the server cannot do what was asked: no server paths, pids or commands.

The details are the operator's: they go to the server's log.
"""

from __future__ import annotations

import logging

import pytest

from ragwire.errors import ProviderError, StoreLockedError

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from ragwire.web.api import create_app  # noqa: E402

# What the embedded store says when another process holds its folder (store/edge.py).
LOCKED = ("the embedded store at /srv/ragwire/store is in use by another process: process 4242 (ragwire ingest "
          "docs/), writing it for 3 min; waited 30 s. The embedded engine serves one process at a time: retry when "
          "it is done (ragwire sync --wait SECONDS waits), or point vectorstore.url at a Qdrant server.")
UNREACHABLE = "ChatOpenAI model gpt-x at http://10.0.0.7:8000/v1 failed after 3 tries: connection refused"


class Failing:
    """A service whose reads fail the way the store and the model do."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def query(self, *args: object) -> None:
        raise self.exc

    def stats(self) -> None:
        raise self.exc


@pytest.mark.parametrize(("exc", "status", "says"), [
    (StoreLockedError(LOCKED), 503, "the collection is busy"),
    (ProviderError(UNREACHABLE), 502, "the answer model or the embedding service did not answer"),
])
def test_a_locked_store_or_an_unreachable_model_reaches_the_web_user_without_paths_pids_or_commands(
        exc, status, says, caplog):
    # guards: the locked-store message showed the web user the store's path, the pid and a CLI command
    client = TestClient(create_app(Failing(exc)))  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="ragwire.web.api"):
        for response in (client.get("/api/stats"), client.post("/api/query", json={"question": "anything?"})):
            error = response.json()["error"]
            assert response.status_code == status and error.startswith(says), error
            for secret in ("/srv/ragwire", "4242", "ragwire sync", "10.0.0.7", "vectorstore.url"):
                assert secret not in error
    assert str(exc) in caplog.text  # the operator reads it all in the server's log
