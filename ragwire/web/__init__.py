"""``ragwire serve``: the HTTP API and the web page (needs: pip install "ragwire[server]").

    api.py      the FastAPI app: /api/* routes, the page at /, OpenAPI at /docs; streamed answers
    schema.py   the request bodies and response models the OpenAPI description shows; the bearer scheme
    service.py  the public-API calls behind the routes: reads at once, writes as jobs; --sync-every
    jobs.py     the one background writer: jobs in order, per-file progress and outcomes
    uploads.py  upload names (NFC, no overwrite: ``report (2).pdf``), never into a synced folder
    pages.py    a stored PDF page as PNG with the cited passage's boxes
    serve.py    security checks, socket, uvicorn
    static/     the page: plain HTML, CSS and ES modules (no build step), with marked and DOMPurify
                vendored for Markdown (their licences beside them)

Importing this package imports nothing heavy; FastAPI loads when the app is built.
"""

from __future__ import annotations

from .serve import INSTALL_HINT, TOKEN_ENV, build_asgi, parse_duration, serve

__all__ = ["INSTALL_HINT", "TOKEN_ENV", "build_asgi", "parse_duration", "serve"]
