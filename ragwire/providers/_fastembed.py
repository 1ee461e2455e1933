"""A LangChain ``Embeddings`` over ``fastembed.TextEmbedding`` (ONNX, no torch).

Imported only by the fastembed builder, because it needs fastembed and
langchain-core at import time.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings


class FastEmbedEmbeddings(Embeddings):
    """Dense embeddings computed locally by fastembed.

    Args:
        model_name: a fastembed registry name such as ``BAAI/bge-small-en-v1.5``.
        specific_model_path: a local folder holding that model's ONNX files;
            fastembed then never contacts the model hub.
        batch_size: texts per ONNX batch.
        cache_dir: where fastembed keeps downloaded models.
    """

    def __init__(
        self,
        model_name: str,
        specific_model_path: str | None = None,
        batch_size: int = 256,
        cache_dir: str | None = None,
    ) -> None:
        from fastembed import TextEmbedding

        kwargs: dict[str, object] = {}
        if specific_model_path:
            kwargs["specific_model_path"] = specific_model_path
        if cache_dir:
            kwargs["cache_dir"] = cache_dir
        self.model_name = model_name
        self.batch_size = batch_size
        self._model = TextEmbedding(model_name=model_name, **kwargs)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (passages)."""
        vectors = self._model.passage_embed(list(texts), batch_size=self.batch_size)
        return [vector.tolist() for vector in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query (some models prefix queries differently)."""
        vector = next(iter(self._model.query_embed(text)))
        return vector.tolist()
