"""Sync sources without a store: the registry, key safety, identities, the missing extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragwire.config import LocalSource, S3Source
from ragwire.errors import ConfigError, MissingDependencyError
from ragwire.sync import SyncStats, make_source, make_sources
from ragwire.sync.s3 import unsafe_key_reason


@pytest.mark.parametrize("key", ["../../etc/passwd", "docs/../../x.md", "/etc/passwd", "a\\..\\b.md", "./a.md", "a//b.md"])
def test_keys_escaping_the_cache_are_refused(key):
    assert unsafe_key_reason(key) is not None


@pytest.mark.parametrize("key", ["docs/a.md", "a..b.md", "deep/er/x.txt"])
def test_ordinary_keys_are_kept(key):
    assert unsafe_key_reason(key) is None


def test_local_identities(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("# A\n\ntext\n")
    named = make_source(LocalSource(path=tmp_path, name="hb", recursive=True))
    unnamed = make_source(LocalSource(path=tmp_path, recursive=True))
    assert [e.identity for e in named.list().entries] == ["local://hb/sub/a.md"]
    assert [e.identity for e in unnamed.list().entries] == [str(tmp_path / "sub" / "a.md")]
    assert unnamed.key == str(tmp_path)


def test_two_sources_with_one_key_are_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"sources\[1\]: same source as sources\[0\]"):
        make_sources([LocalSource(path=tmp_path), LocalSource(path=str(tmp_path) + "/.")])


def test_missing_boto3_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "boto3", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragwire\[s3\]'"):
        make_source(S3Source(bucket="bucket"))


def test_importing_sync_does_not_import_boto3():
    code = "import sys, ragwire.sync, ragwire.sync.local; print('boto3' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_empty_stats_dict_has_the_spec_keys():
    out = SyncStats().to_dict()
    for key in ("listed", "processed", "skipped", "replaced", "deleted", "deleted_chunks", "failed",
                "chunks_created", "embedded_chunks", "reused_chunks", "warnings", "errors", "sources"):
        assert key in out
