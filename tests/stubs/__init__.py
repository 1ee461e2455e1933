"""Test doubles that run the real client stack: stub provider servers on 127.0.0.1."""

from tests.stubs.server import DROP, RecordedRequest, StubServer, fake_embedding

__all__ = ["DROP", "RecordedRequest", "StubServer", "fake_embedding"]
