"""The ``ragwire`` command: one module per command group; failures become exit codes in :mod:`.errors`.

    app.py      the group (--version, --debug) and open_rag()
    entry.py    the executable: run a command, exit without the interpreter's teardown
    errors.py   handle_errors: error line + exit code, in one place; the EXIT_* codes
    options.py  shared options (--config, --json, --filter, --search-type), filter parsing
    output.py   JSON output, a chunk's location and score
    ingest.py   ingest, reingest, delete
    search.py   query, retrieve
    info.py     stats, fields
    init.py     init (a commented config.yaml from the packaged templates)
    sync.py     sync
    eval.py     eval
    model.py    model prepare
    mcp.py      mcp serve
    migrate.py  migrate
    serve.py    serve (the HTTP API and web page)

Importing this package is cheap: each command imports the library's heavy parts when it runs.
"""

from __future__ import annotations

from .access import audit, token
from .app import main, open_rag
from .errors import (
    EXIT_LOCKED,
    EXIT_MISMATCH,
    EXIT_PARTIAL,
    EXIT_REFUSED,
    handle_errors,
)
from .eval import eval_command
from .info import fields, stats
from .ingest import delete, ingest, reingest
from .init import init
from .mcp import mcp, mcp_serve
from .migrate import migrate
from .model import model, prepare
from .output import score_text
from .search import query, retrieve
from .serve import serve
from .sync import sync

for _command in (ingest, reingest, delete, query, retrieve, stats, fields, sync, eval_command, model, mcp, serve):
    main.add_command(_command)
main.add_command(migrate)
main.add_command(init)
main.add_command(token)
main.add_command(audit)

__all__ = [
    "EXIT_LOCKED",
    "EXIT_MISMATCH",
    "EXIT_PARTIAL",
    "EXIT_REFUSED",
    "delete",
    "eval_command",
    "fields",
    "handle_errors",
    "ingest",
    "main",
    "mcp",
    "mcp_serve",
    "migrate",
    "model",
    "open_rag",
    "prepare",
    "query",
    "reingest",
    "retrieve",
    "score_text",
    "serve",
    "stats",
    "sync",
]
