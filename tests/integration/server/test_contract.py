"""The strict request contract of `ragwire serve` (issue 34): an unknown key or a value of the wrong type is
refused, naming it, where it used to be ignored or to match nothing."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.timeout(300)


def error(server, method: str, path: str, body=None) -> tuple[int, str]:
    status, _, raw = server.request(method, path, body)
    return status, json.loads(raw)["error"]


def test_an_unknown_body_key_is_a_422_naming_it_with_a_did_you_mean(server):
    # guards: {"topk": 1} returned five results
    assert error(server, "POST", "/api/retrieve", {"query": "charging", "topk": 1}) == (
        422, "unknown key 'topk' in the body of POST /api/retrieve (did you mean 'top_k'?)")
    # guards: {"filter": …} (singular) searched everything
    assert error(server, "POST", "/api/query", {"question": "charging?", "filter": {"title": "x"}}) == (
        422, "unknown key 'filter' in the body of POST /api/query (did you mean 'filters'?)")
    status, message = error(server, "POST", "/api/query", {"question": "charging?", "top_k": 99})
    assert status == 422 and message.startswith("top_k: Input should be less than or equal to 50"), message


def test_an_unknown_query_key_is_a_400_naming_it(server):
    assert error(server, "GET", "/api/fields?limt=3") == (
        400, "unknown key 'limt' in the query of GET /api/fields (did you mean 'limit'?)")
    status, message = error(server, "GET", "/api/stats?verbose=1")
    assert status == 400 and message.startswith("unknown key 'verbose' in the query of GET /api/stats"), message


def test_a_filter_value_of_the_wrong_type_or_a_mixed_list_is_a_400_naming_the_field(server):
    # guards: {"title": 5} returned [] while {"title": true} was a 400
    status, message = error(server, "POST", "/api/retrieve", {"query": "warranty", "filters": {"title": 5}})
    assert status == 400 and "filters.title: 5 is not a string (the field holds strings)" in message, message
    # guards: {"language": ["en", 3]} was accepted
    status, message = error(server, "POST", "/api/query", {"question": "warranty?", "filters": {"title": ["en", 3]}})
    assert status == 400 and "filters.title: a list mixes strings and numbers" in message, message
    found = server.json("POST", "/api/retrieve", {"query": "warranty", "filters": {"file_type": ["pdf"]}})
    assert {r["file_name"] for r in found["results"]} == {"warranty-policy.pdf"}
