"""``type: s3`` sources: objects under a bucket prefix, mirrored into ``cache_dir`` before ingestion.

Identity: ``s3://<bucket>/<key>`` (the chunks' ``source``).  An object is downloaded
again only when its ETag or size changed since the cached copy (kept in a manifest
per source beside the cache), so an unchanged bucket costs one listing and no downloads.
Each object is cached as ``<bucket>/<hash of its key>/<its file name>``: any key fits
(a 300-byte segment, ``x.md`` beside ``x.md/inner.md``), and the file keeps its name.
Keys that would land outside the cache (``../``, absolute) are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from ..config import LoaderConfig, S3Source
from ..errors import MissingDependencyError, SourceError, one_line
from ..ingest import source_id
from ..logs import get_logger
from .base import Listing, Refused, Source, SourceEntry

log = get_logger(__name__)

# A partial download untouched this long belongs to a killed run, not a running one.
_STALE_PART_S = 15 * 60
# The longest file name most filesystems take, in bytes.
_NAME_MAX = 255


def _boto3() -> Any:
    try:
        import boto3
        from botocore.config import Config
    except ImportError as exc:
        raise MissingDependencyError("sources: type: s3", "boto3", "s3") from exc
    return boto3, Config


def unsafe_key_reason(key: str) -> str | None:
    """Why ``key`` cannot be mirrored under the cache, or None when it can."""
    parts = key.split("/")
    if key.startswith(("/", "\\")) or parts[0].endswith(":"):
        return "absolute object key; refused so nothing is written outside cache_dir"
    if any(p in ("..", ".") for p in parts) or "\\" in key or "\x00" in key:
        return "object key escapes cache_dir (../ or backslash); refused, not downloaded"
    if "" in parts:
        # "a//b" and "a/b" would share one cached file
        return "object key has an empty path segment (//); refused, not downloaded"
    return None


class S3BucketSource(Source):
    """Objects of ``bucket`` under ``prefix`` with a wanted extension."""

    def __init__(self, config: S3Source, loader: LoaderConfig) -> None:
        self.config = config
        self.loader = loader
        self.bucket = config.bucket
        self.prefix = config.prefix
        self.key = config.name or f"s3://{config.bucket}/{config.prefix}"
        self.place = f"s3://{config.bucket}/{config.prefix}"
        self.cache_root = Path(source_id(config.cache_dir)) / config.bucket
        # One manifest per bucket and prefix: two sources on one bucket never overwrite
        # each other's, and renaming a source keeps its cache.
        prefix_id = hashlib.sha256(config.prefix.encode("utf-8")).hexdigest()[:12]
        self.manifest_path = Path(source_id(config.cache_dir)) / f".{config.bucket}.{prefix_id}.ragwire-cache.json"
        # The per-bucket manifest and key-mirroring layout of earlier versions, read to keep their downloads.
        self.legacy_manifest_path = Path(source_id(config.cache_dir)) / f".{config.bucket}.ragwire-cache.json"
        self._use_legacy = not self.manifest_path.exists()
        self._legacy_manifest: dict[str, str] | None = None
        self.extensions = set(config.extensions or loader.extensions)
        self.max_bytes = int(loader.max_file_size_mb * 2**20)
        self.downloads = 0
        self._client: Any = None
        self._manifest: dict[str, str] | None = None
        self._manifest_changed = False
        _boto3()  # a missing extra is a config problem: say so before any work

    @property
    def client(self) -> Any:
        if self._client is None:
            boto3, Config = _boto3()
            c = self.config
            secret = c.aws_secret_access_key.get_secret_value() if c.aws_secret_access_key else None
            self._client = boto3.client(
                "s3",
                region_name=c.region,
                endpoint_url=c.endpoint_url,
                aws_access_key_id=c.aws_access_key_id,
                aws_secret_access_key=secret,
                # A scheduled job must fail fast on an unreachable endpoint, not hang for minutes.
                config=Config(connect_timeout=5, read_timeout=60, retries={"max_attempts": 3, "mode": "standard"}),
            )
        return self._client

    def _where(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"

    def list(self) -> Listing:
        self._clean_partial_downloads()
        listing = Listing()
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
            for page in pages:
                for obj in page.get("Contents", []):
                    self._consider(obj, listing)
        except SourceError:
            raise
        except Exception as exc:  # botocore's ClientError / BotoCoreError and the transport's errors
            raise SourceError(f"{self._where()}: cannot be listed ({one_line(exc)})") from exc
        return listing

    def _consider(self, obj: dict[str, Any], listing: Listing) -> None:
        key = obj["Key"]
        if key.endswith("/"):
            return  # a "folder" marker, not a file
        if PurePosixPath(key).suffix.lower() not in self.extensions:
            return  # not a candidate, like an unsupported extension in a folder walk
        identity = f"s3://{self.bucket}/{key}"
        reason = unsafe_key_reason(key)
        if reason is None and int(obj.get("Size", 0)) > self.max_bytes:
            reason = f"larger than {self.max_bytes / 2**20:.1f} MB limit"
        if reason is not None:
            log.warning("%s: %s", identity, reason)
            listing.refused.append(Refused(identity, identity, reason))
            return
        fingerprint = f"{str(obj.get('ETag', '')).strip(chr(34))}:{int(obj.get('Size', 0))}"
        listing.entries.append(SourceEntry(identity, fingerprint, identity))

    # -- the cache ----------------------------------------------------------
    def _key(self, entry: SourceEntry) -> str:
        return entry.identity[len(f"s3://{self.bucket}/"):]

    def relative(self, entry: SourceEntry) -> str:
        return self._key(entry)[len(self.prefix):].lstrip("/")

    def tags(self, entry: SourceEntry) -> dict[str, str] | None:
        try:
            answer = self.client.get_object_tagging(Bucket=self.bucket, Key=self._key(entry))
        except Exception as exc:  # botocore's ClientError / BotoCoreError and the transport's errors
            raise SourceError(f"{entry.identity}: its tags cannot be read ({one_line(exc)})") from exc
        return {str(t["Key"]): str(t["Value"]) for t in answer.get("TagSet", [])}

    def cached_path(self, entry: SourceEntry) -> Path:
        """``<cache>/<bucket>/<2 hex>/<14 hex>/<file name>``, the hex from the key's SHA-256."""
        key = self._key(entry)
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        return self.cache_root / digest[:2] / digest[2:16] / _file_name(PurePosixPath(key).name, digest)

    def _legacy_path(self, entry: SourceEntry) -> Path | None:
        path = Path(os.path.normpath(self.cache_root / self._key(entry)))
        if os.path.commonpath([path, self.cache_root]) != str(self.cache_root):
            return None
        return path

    @staticmethod
    def _read_manifest(path: Path) -> dict[str, str]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    @property
    def manifest(self) -> dict[str, str]:
        if self._manifest is None:
            self._manifest = self._read_manifest(self.manifest_path)
        return self._manifest

    def _cached(self, path: Path, entry: SourceEntry, manifest: dict[str, str]) -> bool:
        size = entry.fingerprint.rsplit(":", 1)[-1]
        try:
            on_disk = str(path.stat().st_size)
        except OSError:
            return False
        return manifest.get(self._key(entry)) == entry.fingerprint and on_disk == size

    def _legacy_copy(self, entry: SourceEntry) -> Path | None:
        """A current copy left by an earlier version's cache layout, or None."""
        if not self._use_legacy:
            return None  # this source has run with the current layout; its manifest is the record
        legacy = self._legacy_path(entry)
        if legacy is None:
            return None
        if self._legacy_manifest is None:
            self._legacy_manifest = self._read_manifest(self.legacy_manifest_path)
        return legacy if self._cached(legacy, entry, self._legacy_manifest) else None

    def needs_fetch(self, entry: SourceEntry) -> bool:
        if self._cached(self.cached_path(entry), entry, self.manifest):
            return False
        return self._legacy_copy(entry) is None

    def fetch(self, entry: SourceEntry) -> Path:
        path = self.cached_path(entry)
        key = self._key(entry)
        if self._cached(path, entry, self.manifest):
            return path
        legacy = self._legacy_copy(entry)
        if legacy is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                os.replace(legacy, path)
                self.manifest[key] = entry.fingerprint
                self._manifest_changed = True
                return path
            except OSError:
                pass  # downloaded again below

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Download beside the target and rename: a killed run never leaves half a file
            # that a later run would take for the cached copy.
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    got = self._download(key, handle)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except Exception as exc:
            raise SourceError(f"{entry.identity}: download failed ({one_line(exc)})") from exc
        self.downloads += 1
        if got != entry.fingerprint:
            # Overwritten between the listing and the download: the cache holds the version
            # downloaded, so that is the one recorded; the next listing sees the difference.
            log.info("%s: changed since it was listed (%s, downloaded %s)", entry.identity, entry.fingerprint, got)
        self.manifest[key] = got
        self._manifest_changed = True
        if self.downloads % 100 == 0:
            self.close()  # a killed run re-downloads at most the last hundred objects
        return path

    def _download(self, key: str, handle: BinaryIO) -> str:
        """Write the object's bytes to ``handle``; return the fingerprint of the version read
        (its ETag and size as the GET returned them, not as the listing saw them)."""
        reply = self.client.get_object(Bucket=self.bucket, Key=key)
        body = reply["Body"]
        size = 0
        try:
            for block in iter(lambda: body.read(1 << 20), b""):
                handle.write(block)
                size += len(block)
        finally:
            body.close()
        return f"{str(reply.get('ETag', '')).strip(chr(34))}:{size}"

    def _clean_partial_downloads(self) -> None:
        """Remove ``.part-*`` files a killed download left (older than a running one could be)."""
        if not self.cache_root.is_dir():
            return
        cutoff = time.time() - _STALE_PART_S
        for folder, _dirs, files in os.walk(self.cache_root):
            for name in files:
                if not name.startswith(".part-"):
                    continue
                path = Path(folder) / name
                try:
                    if path.stat().st_mtime < cutoff:
                        path.unlink()
                        log.info("removed a partial download a killed run left: %s", path)
                except OSError:
                    continue

    def close(self) -> None:
        """Save the cache manifest."""
        if self._manifest is None or not self._manifest_changed:
            return  # a dry run, or nothing downloaded: nothing to record
        self.manifest_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.manifest, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.manifest_path)


def _file_name(name: str, digest: str) -> str:
    """``name`` if the filesystem takes it, else shortened with a part of ``digest``, keeping the extension."""
    if name and len(name.encode("utf-8")) <= _NAME_MAX and name not in (".", ".."):
        return name
    suffix = PurePosixPath(name).suffix if len(PurePosixPath(name).suffix.encode("utf-8")) < 32 else ""
    room = _NAME_MAX - len(suffix.encode("utf-8")) - 9
    stem = name.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    return f"{stem}-{digest[:8]}{suffix}"
