"""MCP tools as plain functions (no MCP dependency) and the server built on them; ``mcp`` is imported only to build one."""

from .server import build_server, serve
from .tools import answer_question, collection_stats, get_filter_context, search_documents

__all__ = ["answer_question", "build_server", "collection_stats", "get_filter_context", "search_documents", "serve"]
