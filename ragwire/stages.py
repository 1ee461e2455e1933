"""What each stage needs from the models and loaders it is handed, as Protocols, in one place.

A part takes an ``Embedder`` or a ``ChatModel`` rather than a LangChain class, so a
test double, the packaged ONNX model or any LangChain provider fits without
inheriting anything (haystack's components and langchain-core's ``Embeddings`` do the
same).  Only the methods ragwire calls are named here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable, RunnableConfig

    from .loaders.result import LoadOutcome

# A sparse vector as the store takes it: (term indices, weights).
SparseVector = tuple[list[int], list[float]]

# What a chat call sends: LangChain messages, or (role, text) pairs it converts.
Messages = Sequence["BaseMessage | tuple[str, str]"]


@runtime_checkable
class Embedder(Protocol):
    """Dense vectors: one per document text, one for a query (LangChain's ``Embeddings`` shape)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class SparseEmbedder(Protocol):
    """Sparse (BM25) vectors for hybrid and keyword search."""

    def embed_documents(self, texts: Iterable[str]) -> Sequence[SparseVector]: ...

    def embed_query(self, text: str) -> SparseVector: ...


@runtime_checkable
class Loader(Protocol):
    """Reads one file into text (and pages): a typed outcome, a failure included, never a raise for a bad file."""

    def load_outcome(self, file_path: str | os.PathLike[str]) -> LoadOutcome: ...


@runtime_checkable
class ChatModel(Protocol):
    """A chat model as ragwire calls it (LangChain's ``BaseChatModel`` fits): a reply, streamed or awaited,
    and a structured-output wrapper for metadata extraction."""

    def invoke(self, input: Messages, config: RunnableConfig | None = None) -> BaseMessage: ...

    async def ainvoke(self, input: Messages, config: RunnableConfig | None = None) -> BaseMessage: ...

    def stream(self, input: Messages, config: RunnableConfig | None = None) -> Iterator[BaseMessage]: ...

    def with_structured_output(self, schema: dict[str, Any] | type, *, include_raw: bool = False) -> Runnable[Any, Any]: ...
