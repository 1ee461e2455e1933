"""The embedded engine: Qdrant Edge, the real Qdrant engine in-process, one folder per collection.

Beside each collection folder ``<path>/<name>/`` lives a lock file ``.<name>.lock``:
a process holds it while the folder is open, creating or being dropped, and Edge
is never asked to load a folder whose lock another process holds.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, StoreFullError, StoreLockedError, one_line
from ..logs import get_logger
from .edge_native import (
    build_shard,
    edge_module,
    index_operation,
    native_filter,
    native_points,
    query_request,
)
from .engine import DenseParams, Engine, Fusion, Offset, Point, guarded
from .filters import Filter
from .folder import folder_state, fsync_dir
from .lock import StoreLock, duration
from .options import StoreOptions
from .private_copy import PrivateCopy, is_permission_error, open_advice
from .space import (
    DELETE_MARGIN,
    MARGIN,
    NEW_STORE,
    WriteRoom,
    occupied_bytes,
    open_need,
    require_free,
)

if TYPE_CHECKING:
    from qdrant_edge import EdgeShard

log = get_logger(__name__)


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc)
    return "WouldBlock" in text or "already accessed" in text or "lock" in text.lower()


class EdgeEngine(Engine):
    name = "edge"
    exclusive = True

    def __init__(self, folder: Path, collection: str, lock_wait_s: float = StoreOptions.lock_wait_s) -> None:
        self.root = Path(folder)
        self.collection = collection
        self.path = self.root / collection
        self.location = str(self.path)
        self.lock_wait_s = lock_wait_s
        self.lock = StoreLock(self.root / f".{collection}.lock")
        self._shard: EdgeShard | None = None
        self._dirty = False
        self._room = WriteRoom(self.path)
        # A private copy opened because this process may only read the store folder.
        self._copy: PrivateCopy | None = None

    def _wrap(self, what: str, exc: Exception) -> StoreError:
        return StoreError(f"embedded store at {self.path}: {what} failed: {one_line(exc)}")

    # -- the folder ------------------------------------------------------
    def _state(self) -> str:
        """``missing``, ``half`` (an older creation was killed before Edge wrote its config) or ``present``."""
        return folder_state(self.root, self.path)

    def _locked_error(self) -> StoreLockedError:
        holder = self.lock.holder()
        waited = f"; waited {self.lock_wait_s:.0f} s"
        if holder and holder.get("pid") not in (None, os.getpid()):
            age = duration(time.time() - float(holder.get("since") or time.time()))
            doing = "writing it" if holder.get("role") == "writing" else "holding it open"
            who = f"process {holder['pid']} ({holder.get('command') or 'unknown command'})"
            return StoreLockedError(
                f"the embedded store at {self.path} is in use by another process: {who}, {doing} for {age}"
                f"{waited}. "
                "The embedded engine serves one process at a time: retry when it is done (ragwire sync "
                "--wait SECONDS waits), or point vectorstore.url at a Qdrant server for concurrent use."
            )
        return StoreLockedError(
            f"the embedded store at {self.path} is in use by another process or another open "
            f"RAGWire (an MCP server, or another ingest/sync?){waited}. Stop it or wait, then retry; "
            "for concurrent use point vectorstore.url at a Qdrant server."
        )

    def note_writing(self, writing: bool) -> None:
        """Tell processes waiting for the folder that a write run holds it (or no longer)."""
        self.lock.note("writing" if writing else "open")

    def _acquire(self) -> bool:
        """Take the folder lock; True if this call took it (False: it was held already)."""
        if self.lock.held:
            return False
        try:
            taken = self.lock.acquire(self.lock_wait_s)
        except OSError as exc:
            raise StoreError(f"cannot create the lock file {self.lock.path}: {one_line(exc)}") from exc
        if not taken:
            raise self._locked_error()
        return True

    def _load(self) -> None:
        q = edge_module()
        deadline = time.monotonic() + self.lock_wait_s
        while True:
            try:
                self._shard = q.EdgeShard.load(str(self.path))
                self.generation += 1
                return
            except Exception as exc:
                if is_permission_error(exc) and not os.access(self.path, os.W_OK):
                    self._load_copy(exc)
                    return
                if not _is_lock_error(exc):
                    raise StoreError(
                        f"cannot open the embedded store at {self.path}: {one_line(exc)}. {open_advice(exc)}"
                    ) from exc
                # We hold our lock, so the holder is a process that does not take it
                # (an older ragwire, or a platform without fcntl): wait for it as before.
                if time.monotonic() >= deadline:
                    raise self._locked_error() from exc
                time.sleep(0.2)

    def _load_copy(self, refused: Exception) -> None:
        self._copy = PrivateCopy.open(self.path, self.collection, refused)
        self._shard = self._copy.shard
        self.generation += 1

    # -- lifecycle -------------------------------------------------------
    @guarded("open")
    def open(self) -> None:
        if self._shard is not None or not self.exists():
            return
        took = self._acquire()
        try:
            # Re-check under the lock: the holder we waited for may have dropped it.
            if self._state() == "present":
                # Opening touches the store's mapped files: on a full disk that is a SIGBUS.
                try:
                    require_free(self.path, open_need(self.path), "open it")
                except StoreFullError as full:
                    self._load_copy(full)  # reads go on from a copy elsewhere; writes get this error
                else:
                    self._load()
        finally:
            if took and self._shard is None:
                self.lock.release()

    def flush(self) -> None:
        # Reads need no flush; skipping it keeps a search-only session cheap.
        if self._shard is not None and self._dirty:
            try:
                self._shard.flush()
            except Exception as exc:
                raise self._wrap("flush", exc) from exc
            self._dirty = False

    def close(self) -> None:
        try:
            if self._shard is not None:
                try:
                    self.flush()
                finally:
                    shard, self._shard = self._shard, None
                    self._dirty = False
                    try:
                        shard.close()
                    except Exception as exc:
                        raise self._wrap("close", exc) from exc
        finally:
            if self._copy is not None:
                copy, self._copy = self._copy, None
                copy.remove()
            self.lock.release()

    @property
    def shard(self) -> EdgeShard:
        if self._shard is None:
            self.open()
        if self._shard is None:
            raise StoreError(
                f"collection '{self.collection}' does not exist at {self.root}; "
                "run `ragwire ingest` first, or check vectorstore.path and collection_name"
            )
        return self._shard

    @guarded("exists")
    def exists(self) -> bool:
        """Cheap and lock-free: a look at the folder, never a load."""
        return self._shard is not None or self._state() == "present"

    @guarded("create")
    def create(self, dimension: int, sparse: bool, meta: Point, indexes: list[tuple[str, str]]) -> bool:
        """Build the shard in a hidden sibling folder, then rename it into place.

        A crash leaves either no collection folder or a complete one, never a folder
        without its config or model record; the hidden leftovers go with the next create.
        """
        if self._shard is not None:
            return False
        self._state()  # a file in the way is reported before anything is created
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the store folder {self.root}: {one_line(exc)}; check vectorstore.path"
            ) from exc
        took = self._acquire()
        try:
            self._remove_leftovers()
            state = self._state()
            if state == "present":
                self._load()
                return False
            if state == "half":
                log.warning("embedded store at %s was left half-created by an interrupted run; rebuilding it",
                            self.path)
                shutil.rmtree(self.path)
            elif self.path.is_dir():
                self.path.rmdir()
            require_free(self.root, NEW_STORE + MARGIN, "create it")
            building = self.root / f".{self.collection}.creating-{uuid.uuid4().hex}"
            try:
                self._build(building, dimension, sparse, meta, indexes)
                os.rename(building, self.path)
            except BaseException:
                shutil.rmtree(building, ignore_errors=True)
                raise
            fsync_dir(self.root)
            self._load()
            self._dirty = False
            return True
        except OSError as exc:
            raise StoreError(f"embedded store at {self.path}: create failed: {one_line(exc)}") from exc
        finally:
            if took and self._shard is None:
                self.lock.release()

    def _build(self, folder: Path, dimension: int, sparse: bool, meta: Point,
               indexes: list[tuple[str, str]]) -> None:
        try:
            build_shard(folder, dimension, sparse, self._native_points([meta]), indexes)
        except Exception as exc:
            raise self._wrap("create", exc) from exc

    def _remove_leftovers(self) -> None:
        # Only a creator holding the lock builds, so unheld leftovers are from a killed run.
        for leftover in self.root.glob(f".{self.collection}.creating-*"):
            log.info("removing %s, left by an interrupted creation", leftover)
            shutil.rmtree(leftover, ignore_errors=True)

    @guarded("drop")
    def drop(self) -> None:
        self._state()
        if not self.path.exists():
            return
        took = self._acquire()
        try:
            if self._shard is not None:
                shard, self._shard = self._shard, None
                self._dirty = False
                try:
                    shard.close()
                except Exception as exc:
                    raise self._wrap("drop", exc) from exc
            self.generation += 1
            try:
                shutil.rmtree(self.path)
            except OSError as exc:
                raise StoreError(f"embedded store at {self.path}: drop failed: {one_line(exc)}") from exc
        finally:
            # A drop inside an open session keeps the lock for the create that follows.
            if took:
                self.lock.release()

    # -- translation -----------------------------------------------------
    def _filter(self, flt: Filter | None):
        return native_filter(flt)

    # -- writes ----------------------------------------------------------
    def _update(self, operation, need: int | None = None) -> None:
        # Checked before every write: a disk that fills during a run stops it cleanly,
        # with pending chunks that readers never see, instead of killing the process.
        if self._copy is not None:
            raise self._copy.write_refusal()
        if need is None:
            self._room.check()
        else:
            # A delete appends one small log record: it must work on a disk that writes filled,
            # where claiming every sparse block would fail.
            require_free(self.path, need, "write to it")
        self._dirty = True
        self.shard.update(operation)

    def _native_points(self, points: list[Point]) -> list:
        return native_points(points)

    @guarded("upsert")
    def upsert(self, points: list[Point]) -> None:
        native = self._native_points(points)
        if native:
            self._update(edge_module().UpdateOperation.upsert_points(native))

    @guarded("delete")
    def delete(self, flt: Filter) -> None:
        q = edge_module()
        self._update(q.UpdateOperation.delete_points_by_filter(self._filter(flt)), need=DELETE_MARGIN)

    @guarded("set_payload")
    def set_payload(self, flt: Filter, payload: dict[str, Any], key: str | None = None) -> None:
        q = edge_module()
        self._update(q.UpdateOperation.set_payload_by_filter(self._filter(flt), payload, key))

    # -- reads -----------------------------------------------------------
    @guarded("count")
    def count(self, flt: Filter | None = None) -> int:
        q = edge_module()
        return self.shard.count(q.CountRequest(filter=self._filter(flt), exact=True))

    @guarded("scroll")
    def scroll(self, flt: Filter | None, limit: int, offset: Offset = None, with_vectors: bool = False,
               fields: list[str] | None = None) -> tuple[list[Point], Offset]:
        q = edge_module()
        records, next_offset = self.shard.scroll(
            q.ScrollRequest(
                offset=offset,
                limit=limit,
                filter=self._filter(flt),
                with_payload=fields if fields else True,
                with_vector=with_vectors,
            )
        )
        return [Point.read(r, with_vectors) for r in records], next_offset

    @guarded("retrieve")
    def retrieve(self, ids: list[str], with_vectors: bool = False) -> list[Point]:
        if not ids:
            return []
        records = self.shard.retrieve(list(ids), with_payload=True, with_vector=with_vectors)
        return [Point.read(r, with_vectors) for r in records]

    @guarded("search")
    def search(self, *, dense: list[float] | None = None, sparse: tuple[list[int], list[float]] | None = None,
               flt: Filter | None = None, limit: int = 5, fusion: Fusion | None = None,
               dense_params: DenseParams | None = None, with_vectors: bool = False) -> list[Point]:
        if dense is None and sparse is not None and not sparse[0]:
            return []  # a query of only stopwords matches nothing
        request = query_request(dense=dense, sparse=sparse, flt=flt, limit=limit, fusion=fusion,
                                dense_params=dense_params, with_vectors=with_vectors)
        return [Point.read(p, with_vectors) for p in self.shard.query(request)]

    @guarded("facet")
    def facet(self, key: str, limit: int, flt: Filter | None = None) -> list[tuple[Any, int]]:
        q = edge_module()
        response = self.shard.facet(q.FacetRequest(key=key, limit=limit, exact=True, filter=self._filter(flt)))
        return [(hit.value, hit.count) for hit in response.hits]

    @guarded("create_index")
    def create_index(self, key: str, kind: str) -> None:
        self._update(index_operation(key, kind))

    @guarded("indexes")
    def indexes(self) -> dict[str, str]:
        schema = self.shard.info().payload_schema
        return {key: str(info.data_type).rsplit(".", 1)[-1].lower() for key, info in schema.items()}

    @guarded("indexed_vectors")
    def indexed_vectors(self) -> int:
        return self.shard.info().indexed_vectors_count

    @guarded("optimize")
    def optimize(self) -> bool:
        # The index build writes new segments beside the old ones before it drops them.
        try:
            require_free(self.path, occupied_bytes(self.path) + NEW_STORE + MARGIN, "build its vector index")
        except StoreError as exc:
            log.warning("%s; searches stay exact (slower on large collections) until there is room", exc)
            return False
        self._dirty = True
        return bool(self.shard.optimize())
