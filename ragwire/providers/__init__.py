"""Provider factories: dense embeddings, the BM25 sparse encoder, chat models, and the retry policy.

Importing this package is cheap: torch, sentence-transformers and the
provider SDKs are imported only when a model is built.
"""

from ragwire.providers.embeddings import embedding_dimension, get_embedding
from ragwire.providers.llm import get_chat_model
from ragwire.providers.onnx_export import prepare as prepare_onnx_model
from ragwire.providers.onnx_quantize import prepare as prepare_quantized_model
from ragwire.providers.retry import call_with_retries, classify
from ragwire.providers.sparse import SparseEncoder, SparseVec

__all__ = [
    "SparseEncoder",
    "SparseVec",
    "call_with_retries",
    "classify",
    "embedding_dimension",
    "get_chat_model",
    "get_embedding",
    "prepare_onnx_model",
    "prepare_quantized_model",
]
