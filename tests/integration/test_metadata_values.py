"""One bad value in an LLM metadata reply: the field is dropped, the rest stored, and the document is done.

The real ChatOpenAI client talks to the OpenAI-protocol stub; the packaged
embedding model and the embedded engine store the chunks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragwire import RAGWire
from tests.stubs import StubServer

from .helpers import COMPANY_YEAR_SCHEMA, write_config

SCHEMA = COMPANY_YEAR_SCHEMA + """\
  - name: revenue
    type: float
    description: "Revenue in billions"
"""

DOCS = {
    "apple.md": "# Apple annual report\n\nApple Inc. grew services revenue. The iPhone remained the largest line.",
    "microsoft.md": "# Microsoft annual report\n\nMicrosoft Corporation grew cloud revenue with Azure.",
}


def _config(root: Path, base_url: str) -> Path:
    (root / "metadata.yaml").write_text(SCHEMA, encoding="utf-8")
    return write_config(
        root,
        llm={"provider": "openai", "model": "stub-chat", "base_url": base_url, "api_key": "k", "timeout": 5},
        metadata={"config_file": str(root / "metadata.yaml")},
        ingestion={"retries": 0},
    )


def _docs(root: Path) -> Path:
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _chat_calls(stub: StubServer) -> int:
    return len(stub.requests_to("/chat/completions"))


def _stored(rag: RAGWire) -> dict[str, dict]:
    return {d.metadata["file_name"]: d.metadata for d in rag.retrieve("revenue", top_k=20, filters={})}


@pytest.mark.parametrize("year", ["n/a", "", 2024.7, 10**20], ids=["text", "empty", "fraction", "beyond-int64"])
def test_extraction_keeps_other_fields_when_year_is_unconvertible(tmp_path, year):
    # guards issue 19.9: one unconvertible value failed the whole extraction, and every ingest asked again
    def reply(body: dict) -> str:
        text = str(body["messages"][-1].get("content", ""))
        company = "Apple Inc." if "Apple Inc." in text else "Microsoft Corporation"
        return json.dumps({"company": company, "year": year, "revenue": "a lot" if company == "Apple Inc." else 211.9})

    with StubServer(chat_reply=reply) as stub:
        config = _config(tmp_path, stub.openai_url)
        docs = _docs(tmp_path)
        stats = RAGWire(config).ingest_directory(docs)
        assert (stats["processed"], stats["failed"], stats["metadata_failed"]) == (2, 0, 0)
        assert _chat_calls(stub) == 2

        rag = RAGWire(config)
        stored = _stored(rag)
        apple, microsoft = stored["apple.md"], stored["microsoft.md"]
        assert apple["company"] == "apple inc." and microsoft["company"] == "microsoft corporation"
        assert "year" not in apple and "year" not in microsoft  # not stored as 1e+20, nor as null
        assert "revenue" not in apple and microsoft["revenue"] == 211.9
        assert {apple["metadata_status"], microsoft["metadata_status"]} == {"extracted"}

        again = rag.ingest_directory(docs)
        assert again["skipped"] == 2
        assert _chat_calls(stub) == 2  # the second ingest makes no LLM call


def test_an_unconvertible_value_is_named_in_a_warning(tmp_path, caplog):
    reply = json.dumps({"company": "Apple Inc.", "year": "n/a", "revenue": None})
    with StubServer(chat_reply=reply) as stub:
        with caplog.at_level("WARNING"):
            RAGWire(_config(tmp_path, stub.openai_url)).ingest_directory(_docs(tmp_path))
    dropped = [r.getMessage() for r in caplog.records if "metadata field" in r.getMessage()]
    assert dropped and all(m.startswith("metadata field year: 'n/a' is not an integer") for m in dropped)
    assert not [r for r in caplog.records if "extraction failed" in r.getMessage()]
