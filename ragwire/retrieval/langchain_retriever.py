"""``rag.as_retriever()``: a LangChain retriever over ragwire's own retrieval stage.

Hybrid search, filters and reranking stay ragwire's; the retriever only adapts
the call, so a collection drops into an LCEL chain or a LangGraph agent.  Hits
become LangChain Documents here, at the boundary.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from .retriever import RetrieveOptions, SupportsRetrieve


class RagwireRetriever(BaseRetriever):
    """Calls ``retriever.retrieve(query, RetrieveOptions(**retrieve_kwargs))``.

    ``retrieve_kwargs`` are ``retrieve``'s own keywords: ``top_k``, ``filters``,
    ``rerank``, ``search_type``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: Any  # a SupportsRetrieve: pydantic cannot check a Protocol
    retrieve_kwargs: dict[str, Any] = {}

    def _documents(self, query: str) -> list[Document]:
        stage: SupportsRetrieve = self.retriever
        return [hit.to_document() for hit in stage.retrieve(query, RetrieveOptions(**self.retrieve_kwargs))]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self._documents(query)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        # The embedded engine and a local model are blocking CPU work: keep the loop free.
        return await asyncio.to_thread(self._documents, query)
