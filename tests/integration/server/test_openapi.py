"""The OpenAPI description of `ragwire serve`: what a generated client or Swagger's Authorize button needs."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi")

from ragwire.web import schema  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def json_schema(response: dict[str, Any]) -> dict[str, Any]:
    return response.get("content", {}).get("application/json", {}).get("schema", {})


def test_every_route_declares_its_body_its_error_statuses_and_the_bearer_scheme(server):
    # guards: no security scheme, untyped responses, no 4xx listed, POST /api/documents declaring a 200
    spec = server.json("GET", "/openapi.json")
    assert spec["components"]["securitySchemes"]["bearer"] == {**spec["components"]["securitySchemes"]["bearer"],
                                                                "type": "http", "scheme": "bearer"}
    error_ref = "#/components/schemas/ErrorBody"
    for method, path, op in operations(spec):
        assert path.startswith("/api/"), path
        assert {"bearer": []} in op["security"], (method, path)
        success = [code for code in op["responses"] if code.startswith("2")]
        assert len(success) == 1, (method, path, success)
        body = op["responses"][success[0]]
        assert json_schema(body).get("$ref") or "image/png" in body["content"], (method, path, body)
        errors = {code: r for code, r in op["responses"].items() if code[0] in "45"}
        assert {"401", "403", "421"} <= set(errors), (method, path)
        for code, response in errors.items():
            assert json_schema(response) == {"$ref": error_ref} and response["description"], (method, path, code)
    routes = {(method, path): op for method, path, op in operations(spec)}
    assert list(routes["POST", "/api/documents"]["responses"])[0] == "202"
    assert {"413", "415", "411"} <= set(routes["POST", "/api/documents"]["responses"])
    assert "text/event-stream" in routes["POST", "/api/query"]["responses"]["200"]["content"]
    assert spec["components"]["schemas"]["RetrieveBody"]["properties"]["search_type"]["enum"] == [
        "similarity", "mmr", "hybrid", "keyword"]


def test_the_bodies_the_server_sends_are_the_ones_it_describes(server):
    schema.Stats.model_validate(server.json("GET", "/api/stats"))
    schema.Fields.model_validate(server.json("GET", "/api/fields"))
    documents = schema.Documents.model_validate(server.json("GET", "/api/documents"))
    schema.Results.model_validate(server.json("POST", "/api/retrieve", {"query": "charging station"}))
    answer = schema.AnswerBody.model_validate(server.json("POST", "/api/query",
                                                          {"question": "How long does a full charge take?"}))
    assert answer.citations and answer.markers
    pdf = next(d for d in documents.documents if d.file_type == "pdf")
    from urllib.parse import urlencode

    schema.Source.model_validate(server.json("GET", "/api/source?" + urlencode({"source": pdf.source})))
    schema.Jobs.model_validate(server.json("GET", "/api/jobs"))
    status, _, raw = server.request("GET", "/api/jobs/no-such-job")
    assert status == 404 and schema.ErrorBody.model_validate(json.loads(raw))
