"""``rag.as_retriever()``: a LangChain retriever that runs ragwire's own ``retrieve``.

Hybrid search, filters and reranking stay ragwire's; the retriever only adapts
the call, so a collection drops into an LCEL chain or a LangGraph agent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict


class RagwireRetriever(BaseRetriever):
    """Calls ``rag.retrieve(query, **retrieve_kwargs)``.

    ``retrieve_kwargs`` are ``retrieve``'s own keywords: ``top_k``, ``filters``,
    ``rerank``, ``search_type``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    rag: Any
    retrieve_kwargs: dict[str, Any] = {}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self.rag.retrieve(query, **self.retrieve_kwargs)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        # The embedded engine and a local model are blocking CPU work: keep the loop free.
        return await asyncio.to_thread(self.rag.retrieve, query, **self.retrieve_kwargs)
