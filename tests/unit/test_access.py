"""ragwire.access as pure logic: config, labels of a document, principals, tokens, proxy headers, audit log,
and the one function composing a principal's mandatory filter with a user's (property-tested)."""

from __future__ import annotations

import json
import os
import random
import stat

import pytest

from ragwire.access import AuditLog, Principal, ProxyRefused, TokenFile, compose, document_labels, proxy_principal
from ragwire.access.audit import read_log
from ragwire.config import parse_config
from ragwire.errors import ConfigError
from ragwire.store.filters import Cond, Filter, build_filter, lowercase_shadow


def _config(tmp_path, **extra):
    return parse_config({"embeddings": {"provider": "onnx"}, **extra}, base_dir=tmp_path)


# -- config ---------------------------------------------------------------------------------------------
def test_access_defaults_to_deny_with_the_tokens_file_and_audit_log_beside_the_config(tmp_path):
    access = _config(tmp_path).access
    assert access.default == "deny" and access.default_labels() == []
    assert access.tokens_file == tmp_path / ".ragwire" / "tokens.json"
    assert access.audit.path == tmp_path / ".ragwire" / "audit.jsonl" and access.audit.query == "hash"


def test_a_public_default_stores_unlabelled_documents_as_public(tmp_path):
    assert _config(tmp_path, access={"default": "public"}).access.default_labels() == ["public"]


def test_source_labels_are_lower_cased_and_sub_folders_end_with_a_slash(tmp_path):
    (tmp_path / "docs").mkdir()
    source = _config(tmp_path, sources=[{"type": "local", "path": "docs", "access": ["Staff", "hr"],
                                         "access_paths": {"/hr": ["HR"], "pay/2024/": "finance,hr"}}]).sources[0]
    assert source.access == ["hr", "staff"]
    assert source.access_paths == {"hr/": ["hr"], "pay/2024/": ["finance", "hr"]}


@pytest.mark.parametrize("bad", [["h r"], [""], ["-x"], ["a" * 65]])
def test_a_label_that_is_not_one_is_a_config_error_naming_it(tmp_path, bad):
    (tmp_path / "docs").mkdir()
    with pytest.raises(ConfigError, match="is not a label"):
        _config(tmp_path, sources=[{"type": "local", "path": "docs", "access": bad}])


def test_a_trusted_proxy_must_be_an_address_or_network(tmp_path):
    assert _config(tmp_path, access={"trusted_proxies": ["10.0.0.0/8", "::1"]}).access.trusted_proxies
    with pytest.raises(ConfigError, match="not an address or network"):
        _config(tmp_path, access={"trusted_proxies": ["proxy.local"]})


# -- the labels of a document ------------------------------------------------------------------------------
class _Source:
    access = ["staff"]
    access_paths = {"hr/": ["hr"], "hr/pay/": ["finance", "hr"]}


def test_the_most_specific_statement_labels_a_document():
    source = _Source()
    assert document_labels(source, "intro.md", default=[]) == ["staff"]
    assert document_labels(source, "hr/leave.md", default=[]) == ["hr"]
    assert document_labels(source, "hr/pay/2024.pdf", default=[]) == ["finance", "hr"]
    assert document_labels(source, "hr/pay/x.pdf", default=[], tags={"acl": "legal"}, tag_key="acl") == ["legal"]
    assert document_labels(source, "hr/x.pdf", default=[], given=["ops"]) == ["ops"]


def test_an_unlabelled_document_gets_the_default():
    assert document_labels(None, "a.md", default=["public"]) == ["public"]
    assert document_labels(None, "a.md", default=[]) == []


def test_an_object_tag_may_list_labels_with_the_separators_s3_allows():
    assert document_labels(None, "k", default=[], tags={"acl": "HR+finance  legal:x"}, tag_key="acl") == [
        "finance", "hr", "legal", "x"]
    assert document_labels(None, "k", default=["public"], tags={"other": "hr"}, tag_key="acl") == ["public"]


# -- principals ----------------------------------------------------------------------------------------------
def test_a_principal_reads_public_and_its_groups_only():
    nobody, hr = Principal.of("ann"), Principal.of("bob", "hr")
    assert nobody.can_read(["public"]) and not nobody.can_read(["hr"]) and not nobody.can_read([])
    assert hr.can_read(["hr", "finance"]) and not hr.can_read(["finance"])
    assert not hr.can_write and Principal.of("w", role="writer").can_write
    with pytest.raises(ValueError, match="role"):
        Principal.of("x", role="admin")  # type: ignore[arg-type]


# -- tokens ------------------------------------------------------------------------------------------------
def test_a_token_is_stored_only_as_its_hash_and_maps_to_its_principal(tmp_path):
    tokens = TokenFile(tmp_path / "tokens.json")
    token = tokens.add("carol", "HR,eng", role="writer")
    text = (tmp_path / "tokens.json").read_text()
    assert token not in text and token.startswith("rw_")
    assert stat.S_IMODE(os.stat(tmp_path / "tokens.json").st_mode) == 0o600
    found = TokenFile(tmp_path / "tokens.json").principal(token)
    assert found == Principal.of("carol", ["eng", "hr"], "writer")
    assert tokens.principal(token + "x") is None


def test_a_revoked_token_stops_working_in_a_reader_that_read_the_file_before(tmp_path):
    writer, server = TokenFile(tmp_path / "t.json"), TokenFile(tmp_path / "t.json")
    token = writer.add("dan", "hr")
    assert server.principal(token) is not None
    assert writer.revoke("dan") and not writer.revoke("dan")
    assert server.principal(token) is None


def test_a_second_token_for_one_name_is_refused(tmp_path):
    tokens = TokenFile(tmp_path / "t.json")
    tokens.add("eve")
    with pytest.raises(ConfigError, match="already has a token"):
        tokens.add("eve")


def test_a_damaged_tokens_file_is_one_line_naming_it(tmp_path):
    (tmp_path / "t.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"t\.json: not a tokens file"):
        TokenFile(tmp_path / "t.json").principal("x")


# -- proxy headers ---------------------------------------------------------------------------------------------
def test_proxy_headers_name_the_principal_only_from_a_trusted_address():
    headers = {"x-forwarded-user": "fay", "X-Forwarded-Groups": "HR,finance,not a label"}
    assert proxy_principal(headers, "10.1.2.3", ["10.0.0.0/8"]) == Principal.of("fay", ["finance", "hr"])
    with pytest.raises(ProxyRefused, match="trusted_proxies"):
        proxy_principal(headers, "192.168.1.5", ["10.0.0.0/8"])
    with pytest.raises(ProxyRefused):
        proxy_principal(headers, "127.0.0.1", [])
    assert proxy_principal({"authorization": "Bearer x"}, "127.0.0.1", ["127.0.0.1"]) is None


# -- the audit log ----------------------------------------------------------------------------------------------
def test_the_audit_log_keeps_a_hash_of_the_query_and_rotates_by_size(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl", query="hash", max_bytes=600, keep=2)
    hr = Principal.of("bob", "hr")
    for i in range(12):
        log.record(hr, "/api/retrieve", query=f"salary {i}", filters={"year": 2024}, sources=[f"s{i % 3}"])
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    records = list(read_log(tmp_path / "audit.jsonl"))
    assert 2 < len(records) < 12  # the oldest rotated away
    assert [r["sources"] for r in records][-1] == ["s2"]  # oldest first, newest last
    assert all("query" not in r and len(r["query_sha256"]) == 64 for r in records)
    assert {r["principal"] for r in read_log(tmp_path / "audit.jsonl", source="s1")} == {"bob"}
    assert list(read_log(tmp_path / "audit.jsonl", principal="nobody")) == []


def test_the_audit_log_keeps_full_text_or_nothing_as_configured(tmp_path):
    full = AuditLog(tmp_path / "a.jsonl", query="full").record(Principal.of("a"), "search_documents", query="q")
    off = AuditLog(tmp_path / "b.jsonl", query="off").record(Principal.of("a"), "search_documents", query="q")
    assert full["query"] == "q" and "query" not in off and "query_sha256" not in off
    assert json.loads((tmp_path / "a.jsonl").read_text())["route"] == "search_documents"


# -- the one composing function, property-tested -------------------------------------------------------------------
LABELS = ["public", "hr", "finance", "legal", "eng"]


def _get(payload, key):
    head, _, rest = key.partition(".")
    value = payload.get(head)
    return value if not rest else (value or {}).get(rest)


def _cond(payload, cond: Cond) -> bool:
    value = _get(payload, cond.key)
    values = value if isinstance(value, list) else [] if value is None else [value]
    if cond.any_of is not None:
        return any(v in cond.any_of for v in values)
    if cond.range is not None:
        ops = {"gte": float.__ge__, "gt": float.__gt__, "lte": float.__le__, "lt": float.__lt__}
        return any(all(ops[o](float(v), float(b)) for o, b in cond.range.items()) for v in values
                   if isinstance(v, (int, float)))
    return cond.value in values


def matches(payload, flt: Filter | None) -> bool:
    """The engines' semantics: every must, at least one should (when any), no must_not."""
    if flt is None:
        return True

    def one(item):
        return matches(payload, item) if isinstance(item, Filter) else _cond(payload, item)

    return (all(one(c) for c in flt.must) and (not flt.should or any(one(c) for c in flt.should))
            and not any(one(c) for c in flt.must_not))


def _random_user_filter(rng: random.Random) -> Filter:
    """A hostile user filter: built ones, any-of lists, should/must_not trees, conditions on the access field."""
    conds = [
        lambda: Cond("metadata.access", any_of=tuple(rng.sample(LABELS, rng.randint(1, 5)))),
        lambda: Cond("_ci.access", value=rng.choice(LABELS)),
        lambda: Cond("metadata.year", range={"gte": float(rng.randint(2019, 2025))}),
        lambda: Cond("_ci.team", any_of=("a", "b", "c")),
    ]
    if rng.random() < 0.3:
        built = build_filter(rng.choice([{"access": rng.sample(LABELS, 2)}, {"team": ["a", "b"]},
                                         {"year": {"gte": 2020}}, {"access": "hr", "team": "c"}]))
        assert built is not None
        return built

    def tree(depth: int) -> Filter:
        def item():
            return tree(depth - 1) if depth and rng.random() < 0.4 else rng.choice(conds)()
        return Filter(must=[item() for _ in range(rng.randint(0, 2))],
                      should=[item() for _ in range(rng.randint(0, 3))],
                      must_not=[item() for _ in range(rng.randint(0, 2))])

    return tree(3)


def _random_doc(rng: random.Random) -> dict:
    meta = {"access": sorted(rng.sample(LABELS, rng.randint(0, 3))), "year": rng.randint(2018, 2026),
            "team": rng.choice(["a", "b", "c"])}
    if rng.random() < 0.1:
        del meta["access"]  # stored before labels existed
    return {"metadata": meta, "_ci": lowercase_shadow(meta)}


@pytest.mark.parametrize("seed", range(200))
def test_no_user_filter_widens_what_a_principal_reads(seed):
    rng = random.Random(seed)
    principal = Principal.of("p", rng.sample(LABELS[1:], rng.randint(0, 3)))
    docs = [_random_doc(rng) for _ in range(60)]
    for _ in range(10):
        user = _random_user_filter(rng)
        composed = compose(principal, user)
        for doc in docs:
            seen = matches(doc, composed)
            # readable by the principal, and matched by the user's filter: nothing more, nothing less
            assert seen == (principal.can_read(doc["metadata"].get("access")) and matches(doc, user))


def test_an_unrestricted_principal_gets_the_user_filter_unchanged():
    user = Filter(must=[Cond("metadata.year", value=2024)])
    assert compose(Principal(name="*", unrestricted=True), user) is user
