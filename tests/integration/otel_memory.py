"""The real OpenTelemetry SDK with its in-memory exporter, set as the global tracer provider for one test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ragwire import telemetry


@pytest.fixture
def exporter() -> Iterator[Any]:
    """A tracer provider exporting to memory, set as the global one for the test and then taken back."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    # The API lets a process set its provider once; the test restores the unset state after.
    saved, once = trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done
    trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = provider, True
    try:
        yield memory
    finally:
        trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = saved, once
        telemetry.record_documents(False)
        telemetry.record_queries(False)
        provider.shutdown()


def chat_calls(spans: Any) -> list[tuple[str, int, int]]:
    """``(ragwire.step, input tokens, output tokens)`` of every ``chat`` span, in the order the calls started."""
    chats = sorted((s for s in spans if s.name.startswith("chat ")), key=lambda s: s.start_time)
    return [(c.attributes["ragwire.step"], c.attributes["gen_ai.usage.input_tokens"],
             c.attributes["gen_ai.usage.output_tokens"]) for c in chats]
