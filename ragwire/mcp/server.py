"""The MCP server: the four tools of :mod:`ragwire.mcp.tools` over stdio or streamable HTTP."""

from __future__ import annotations

import inspect
import logging
import sys
import threading
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Iterable, Iterator, Literal

from pydantic import Field

from ragwire.errors import RagwireError

from . import tools

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from ragwire import RAGWire

log = logging.getLogger(__name__)

INSTALL_HINT = 'The MCP server needs the mcp package. Install it with: pip install "ragwire[mcp]"'

Query = Annotated[str, Field(description="What to look for, in the user's words or your own.")]
Question = Annotated[str, Field(description="The question to answer from the documents.")]
TopK = Annotated[int, Field(ge=1, le=50, description="How many passages to use (1-50).")]
Filters = Annotated[
    dict[str, Any] | str | None,
    Field(description='Optional. Restrict to documents whose metadata matches, e.g. {"year": 2024}, '
                      '{"file_type": ["pdf", "docx"]} (any of) or {"year": {"gte": 2023}}. '
                      "Call get_filter_context first to see the fields and stored values."),
]

SEARCH_HELP = (
    "Search the document collection and return the best-matching passages, numbered, each with its "
    "file and page or section heading and the passage text. Use it to read what the documents say "
    "before answering yourself, or to find which document covers a topic."
)
ANSWER_HELP = (
    "Answer a question from the document collection only, citing numbered sources [n] with file and "
    "page or heading. When the documents do not contain the answer, the result says so plainly: then "
    "tell the user, and do not fill the gap from your own knowledge."
)
FILTERS_HELP = (
    "List the metadata fields the collection can be filtered on and their stored values (most "
    "frequent first). Pass the question to also get the filters it asks for. Call it before using "
    "filters in search_documents or answer_question."
)
STATS_HELP = "Describe the collection: its name, number of chunks and documents, vector size and embedding model."


def _mcp_server_class():
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return MCPServer


def _strict_server_class() -> Any:
    """MCPServer refusing a call with an argument its tool does not take (mcp drops unknown ones unread)."""
    base = _mcp_server_class()  # first: without mcp, the install hint, not a missing submodule
    from mcp.server.mcpserver.exceptions import ToolError

    from ragwire.server.contract import unknown_keys

    class StrictServer(base):  # type: ignore[misc,valid-type]
        # tool name -> the arguments it takes; filled by build_server as the tools are added
        arguments: dict[str, list[str]]

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
            if name in self.arguments:
                problem = unknown_keys(arguments or {}, self.arguments[name], f"the arguments of {name}")
                if problem:
                    log.info("tool call refused: %s", problem)
                    raise ToolError(problem)
            from ragwire.access import acting_as
            from ragwire.access.recorder import reset_record, set_record
            from ragwire.access.server import mcp_principal

            # over HTTP the access guard named the request's principal: the tool reads as it
            principal, record = mcp_principal(context)
            if principal is None and getattr(self, "require_principal", False):
                raise ToolError("no principal for this call: send Authorization: Bearer <token>")
            if record is not None:
                record["tool"] = name
            token = set_record(record)
            try:
                with acting_as(principal):
                    return await super().call_tool(name, arguments, context)
            finally:
                reset_record(token)

    return StrictServer


def build_server(rag: RAGWire, name: str = "ragwire") -> Any:
    """An MCP server exposing ``search_documents``, ``answer_question``, ``get_filter_context``
    and ``collection_stats`` over ``rag``.

    A bad call (unparseable filters, an unknown field, a store another process holds too long)
    comes back as a tool result with ``isError`` set; the server keeps running.

    Args:
        rag: A :class:`~ragwire.RAGWire`.  Do not hold it open (``with rag:``): between calls
            the pipeline lets go of an embedded store so ``ragwire sync`` can run.
        name: The server name clients show.

    Returns:
        An ``mcp.server.mcpserver.MCPServer``; call ``.run()`` to serve over stdio.

    Raises:
        ImportError: the ``mcp`` package is not installed (the message has the install command).
    """
    server = _strict_server_class()(name, instructions=(
        "Tools over a document collection. Prefer answer_question for questions; use search_documents "
        "to read passages; call get_filter_context before filtering."))
    from mcp.server.mcpserver.exceptions import ToolError

    server.arguments = {}
    # Tools run in worker threads; one call at a time keeps the pipeline's store handling simple.
    call_lock = threading.Lock()

    @contextmanager
    def lock() -> Iterator[None]:
        # mcp hides the text of an unexpected exception from the client; ragwire's own errors
        # are written for the caller to act on, so they go back as the tool's error result.
        with call_lock:
            try:
                yield
            except (ValueError, RagwireError) as exc:
                log.info("tool call failed: %s", exc)
                raise ToolError(" ".join(str(exc).split())) from exc

    def search_documents(query: Query, top_k: TopK = 5, filters: Filters = None) -> str:
        with lock():
            return tools.search_documents(rag, query, top_k=top_k, filters=filters)

    def answer_question(
        question: Question, top_k: TopK = 5, filters: Filters = None,
        refine: Annotated[bool | None, Field(description="Search each part of a multi-part question "
                                                         "separately and re-query what is missing.")] = None,
    ) -> str:
        with lock():
            return tools.answer_question(rag, question, top_k=top_k, filters=filters, refine=refine)

    def get_filter_context(
        query: Annotated[str, Field(description="Optional: the question the filters are for.")] = "",
    ) -> str:
        with lock():
            return tools.get_filter_context(rag, query)

    def collection_stats() -> str:
        with lock():
            return tools.collection_stats(rag)

    for fn, description in ((search_documents, SEARCH_HELP), (answer_question, ANSWER_HELP),
                            (get_filter_context, FILTERS_HELP), (collection_stats, STATS_HELP)):
        server.add_tool(fn, description=description, structured_output=False)
        server.arguments[fn.__name__] = list(inspect.signature(fn).parameters)
    return server


TOKEN_ENV = "RAGWIRE_MCP_TOKEN"


def serve(config_path: str | Path = "config.yaml", name: str = "ragwire",
          transport: Literal["stdio", "http"] = "stdio", *, host: str = "127.0.0.1", port: int = 8000,
          token: str | None = None, allowed_hosts: Iterable[str] = (), allow_unauthenticated: bool = False,
          rag: RAGWire | Callable[[], RAGWire] | None = None) -> None:
    """Build the server for ``config_path`` and run it until the client disconnects (stdio) or it is stopped.

    Over HTTP it follows the rules of :mod:`ragwire.server.security` (docs/security.md),
    checked before the collection is opened: a bind other than loopback needs a token
    (or ``allow_unauthenticated``), an empty token is refused, and every request's Host
    and Origin must be on the allow-list.

    Args:
        config_path: Path to ``config.yaml``.
        name: The server name clients show.
        transport: ``stdio`` (the client starts this process) or ``http`` (streamable HTTP at
            ``http://HOST:PORT/mcp``).
        host: Interface to bind for HTTP; the default accepts local connections only.
        port: Port for HTTP.
        token: For HTTP: every request needs ``Authorization: Bearer <token>``.  When None,
            ``$RAGWIRE_MCP_TOKEN`` is used if set.
        allowed_hosts: For HTTP: more names clients may reach the server by (``name`` or
            ``name:port``), besides localhost and the bound address.
        allow_unauthenticated: For HTTP: serve a non-loopback ``host`` without a token.
        rag: A ready :class:`~ragwire.RAGWire` to serve instead of opening ``config_path``, or a
            function returning one (called once the checks pass and the port is bound).

    Raises:
        ImportError: the ``mcp`` package is not installed.
        ValueError: an unknown transport, or a token given for stdio.
        ServerError: an HTTP setting the rules refuse, or the port is taken.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', not {transport!r}")
    if transport == "stdio" and (token is not None or allowed_hosts or allow_unauthenticated):
        raise ValueError("a token, allowed hosts and allow_unauthenticated concern the HTTP transport only: "
                         "drop them, or use transport 'http'")
    _mcp_server_class()  # fail with the install command before loading the collection
    if transport == "stdio":
        pipeline = _ready(rag, config_path)
        server = build_server(pipeline, name=name)
        log.info("MCP server %r on stdio", name)
        with owning(pipeline):
            server.run()
        return

    from ragwire.access.recorder import recording
    from ragwire.access.server import server_access
    from ragwire.server.listen import bind_socket
    from ragwire.server.security import ServerGuard, access_note, server_policy

    access = server_access(config_path, rag if rag is not None and not callable(rag) else None)
    policy = server_policy(host, token_flag=token, token_env=TOKEN_ENV, allowed_hosts=allowed_hosts,
                           allow_unauthenticated=allow_unauthenticated or access.enforcing)
    access.server_token, policy = policy.token, access.policy(policy)
    sock = bind_socket(host, port)
    try:
        import uvicorn

        pipeline = _ready(rag, config_path)
        endpoint, _ = http_endpoint(recording(pipeline), host=host, require_principal=access.enforcing, name=name)
        app = access.wrap(ServerGuard(endpoint, policy))  # the endpoint runs its sessions in its own lifespan
        shown = f"[{host}]" if ":" in host else host
        print(f"MCP server {name!r} on http://{shown}:{port}/mcp ({access.describe(access_note(host, policy))})",
              file=sys.stderr, flush=True)
        with owning(pipeline):
            uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()


def http_endpoint(rag: RAGWire, *, host: str, require_principal: bool,
                  name: str = "ragwire") -> tuple[Any, Callable[[], AbstractAsyncContextManager[object]]]:
    """The tools over streamable HTTP at ``/mcp``, and what must run while it serves (its session manager).

    The caller puts the app behind :class:`ragwire.server.security.ServerGuard` (and the
    access guard); ``require_principal``: a call the access guard named nobody for is refused.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(rag, name=name)
    server.require_principal = require_principal
    # ServerGuard checks Host and Origin against the one allow-list; mcp's own check
    # (on for loopback only, with its own list) would refuse names the user allowed.
    app = server.streamable_http_app(
        host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    return app, server.session_manager.run


@contextmanager
def owning(rag: RAGWire) -> Iterator[None]:
    """This process owns ``rag``'s embedded store while the block runs (:mod:`ragwire.server.owner`).

    A CLI writer (``sync``, ``ingest``, ...) started meanwhile hands its run to this
    process's one writer instead of waiting for the store's lock, which the tools'
    steady reads would keep it from getting; the run's reads and the tools' reads
    share the store inside this process.
    """
    from ragwire.server.jobs import Writer
    from ragwire.server.owner import OwnerChannel

    writer = Writer()
    channel = OwnerChannel(rag, writer)
    channel.start()
    try:
        yield
    finally:
        channel.stop()
        writer.stop()


def _ready(rag: RAGWire | Callable[[], RAGWire] | None, config_path: str | Path) -> RAGWire:
    if rag is None:
        from ragwire import RAGWire

        return RAGWire(config_path)
    return rag() if callable(rag) else rag
