"""Free-space checks for the embedded engine, which maps its files into memory.

Qdrant Edge creates its files at full size but sparse, and fills them through
memory maps.  When the filesystem cannot supply a page the process is killed by
SIGBUS (exit 135), with no message and no chance to clean up.  So before it opens
a store, creates one or writes to one, ragwire checks that the space the engine
is about to claim is free, and raises :class:`StoreFullError` instead.

What the engine claims was measured on qdrant-edge 0.9 (a tmpfs, which allocates on
every first touch): opening a store touches its payload-index maps whole (5 MiB per
index); the WAL, vector and payload files fill as data is written.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

from ..errors import StoreFullError

MiB = 2**20
# Free space every write needs: a write batch, a new payload index (5 MiB), the WAL's next pages.
MARGIN = 32 * MiB
# Free space an open needs beyond the index maps it touches whole (measured: an open
# writes nothing else; this covers a WAL replay's first pages).
OPEN_MARGIN = 8 * MiB
# A delete by filter appends one small WAL record; it must work on a disk writes filled.
DELETE_MARGIN = 4 * MiB
# Files an open touches from end to end.
_OPENED_WHOLE = "payload_index"
# What a new collection claims: an empty 384-d + sparse collection maps ~172 MiB, but
# only its index maps (5 MiB each) are touched before data comes.
NEW_STORE = 96 * MiB


# Within this much of its free space, a write first gives the store's sparse files their
# blocks (see claim_holes); with more room the holes stay, and so does the disk space.
TIGHT = 2**30


# Measuring what a write needs walks every file of the store (their holes are what the engine
# may still claim), twice per write batch: 3 s of a 7 s ingest of 25 small files.  With this
# much more free space than the last measure asked for, that measure stands for FRESH_S: the
# engine cannot claim that much in a moment, and on a tight disk every write measures afresh.
ROOMY = 2 * TIGHT
FRESH_S = 1.0


def free_bytes(path: Path) -> int:
    """Free bytes for an unprivileged writer on the filesystem holding ``path`` (or its nearest parent)."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    st = os.statvfs(probe)
    return st.f_bavail * st.f_frsize


def unclaimed_bytes(folder: Path, *, opened_only: bool = False) -> int:
    """Bytes the files under ``folder`` are long but do not yet occupy (their holes);
    with ``opened_only``, of the files an open touches whole."""
    return sum(size - occupied for _, size, occupied in _sparse_files(folder, opened_only=opened_only))


def require_free(path: Path, need: int, what: str) -> None:
    """Raise :class:`StoreFullError` unless ``need`` bytes are free where ``path`` lives."""
    free = free_bytes(path)
    if free < need:
        raise StoreFullError(
            f"embedded store at {path}: cannot {what}: its filesystem has {free / MiB:.0f} MiB free and the "
            f"engine needs about {need / MiB:.0f} MiB (it maps its files into memory and would crash when "
            "one cannot grow); free some space there or move vectorstore.path to a larger disk"
        )


def open_need(folder: Path) -> int:
    """Free bytes opening the store at ``folder`` needs."""
    return unclaimed_bytes(folder, opened_only=True) + OPEN_MARGIN


def write_need(folder: Path) -> int:
    """Free bytes a write to the store at ``folder`` needs: its own margin, and room left to
    open the store afterwards, so a run that stops on a full disk leaves a store that
    ``stats``, ``retrieve`` and ``delete`` can still open."""
    return MARGIN + open_need(folder)


def occupied_bytes(folder: Path) -> int:
    """Bytes the files under ``folder`` occupy on disk."""
    total = 0
    for current, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(current, name)).st_blocks * 512
            except OSError:
                continue
    return total


def _sparse_files(folder: Path, *, opened_only: bool = False) -> list[tuple[str, int, int]]:
    """``(path, length, bytes occupied)`` of each file under ``folder`` that has holes; with
    ``opened_only``, of the files an open touches whole."""
    found = []
    for current, _dirs, files in os.walk(folder):
        if opened_only and _OPENED_WHOLE not in Path(current).parts:
            continue
        for name in files:
            path = os.path.join(current, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            if st.st_size > st.st_blocks * 512:
                found.append((path, st.st_size, st.st_blocks * 512))
    return found


def claim_holes(folder: Path) -> None:
    """Give every sparse file of the store its blocks before a write, when the disk is tight.

    A free-space check cannot win against another process filling the disk at the same
    moment: the engine then touches a page of a sparse, memory-mapped file that the
    filesystem cannot back, and the process dies of SIGBUS.  A page that already has its
    block cannot fault, and asking for the blocks up front turns "no space" into an error.
    (Files the engine creates during the write itself are not covered.)

    Raises:
        StoreFullError: the blocks could not be had.
    """
    holes = _sparse_files(folder)
    if not holes or free_bytes(folder) - sum(size for _, size, _ in holes) > TIGHT:
        return
    for path, size, _ in holes:
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue  # gone, or not ours to write: the engine's own write reports it
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as exc:
            if exc.errno in (errno.EOPNOTSUPP, errno.EINVAL):
                return  # a filesystem without allocation: the free-space check is all there is
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StoreFullError(
                    f"embedded store at {folder}: cannot write to it: its filesystem ran out of space while "
                    "the write was prepared (another process is filling it?); nothing was written; free "
                    "some space there or move vectorstore.path to a larger disk"
                ) from None
            raise
        finally:
            os.close(fd)


class WriteRoom:
    """The free-space check before each write to the store at ``folder`` (see :func:`write_need`,
    :func:`claim_holes`), measured afresh only when the disk is tight or the last measure is old."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._need: int | None = None
        self._measured = 0.0

    def check(self) -> None:
        """Raise :class:`StoreFullError` unless a write fits (giving sparse files their blocks on a tight disk)."""
        last = self._need
        if last is not None and time.monotonic() - self._measured < FRESH_S and free_bytes(self.folder) - last > ROOMY:
            return
        need = write_need(self.folder)
        require_free(self.folder, need, "write to it")
        claim_holes(self.folder)
        self._need, self._measured = need, time.monotonic()
