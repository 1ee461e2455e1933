"""The collection of the access matrix (issue 39): public, hr-only and finance-only documents, PDFs so
their pages can be drawn, each with words no other has; the principals and what each may read."""

from __future__ import annotations

from pathlib import Path

from ragwire import RAGWire

from ..pdfs import pdf_bytes
from .helpers import write_config

DOCS = {
    "public.pdf": (["public"], "Cafeteria policy: the canteen opens at eight and serves soup on Fridays."),
    "hr.pdf": (["hr"], "Parental leave policy: employees receive twenty weeks of salaried leave."),
    "finance.pdf": (["finance"], "Quarterly budget policy: the audit reserve is nine million kroner."),
}
# What each principal's groups let it read.
PRINCIPALS = {
    "nobody": ((), {"public.pdf"}),
    "hr": (("hr",), {"public.pdf", "hr.pdf"}),
    "hr+finance": (("hr", "finance"), {"public.pdf", "hr.pdf", "finance.pdf"}),
}
# Words only one document holds: a search for them as a principal who may not read it finds nothing.
SECRETS = {"hr.pdf": "parental leave twenty weeks", "finance.pdf": "audit reserve nine million kroner"}


def build(root: Path, **sections) -> Path:
    """The three documents ingested with their labels; returns the config."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    config = write_config(root, **sections)
    rag = RAGWire(config)
    for name, (labels, text) in DOCS.items():
        (docs / name).write_bytes(pdf_bytes([text]))
        assert rag.ingest_documents([docs / name], access=labels)["failed"] == 0
    rag.close()
    return config


def file_of(source: str) -> str:
    return Path(str(source)).name
