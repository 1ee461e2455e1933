"""The runtime for bulk embedding (an ingest or a sync): ONNX Runtime or sentence-transformers, by measurement.

``provider: onnx`` runs a sentence-transformers model's ONNX export, checked when it
is built to give the same vectors as sentence-transformers (cosine >= 0.9999), and
both are recorded under one model identity.  Which of the two is faster depends on
the CPU: ONNX Runtime wins clearly on some machines, torch on others.  So a bulk run
may use either, while queries always keep ONNX (its cold start is about a second;
importing torch alone takes several).

:func:`bulk_embedder` wraps the query model for an ingest.  The first
:data:`SWITCH_AFTER` texts go to ONNX, so a small ingest never loads torch.  Past
that, the choice for this machine and model is read from
``$RAGWIRE_HOME/runtime/<key>.json``, or measured once on a fixed calibration set
(both runtimes, alternating, best of :data:`ROUNDS`) and written there.  The key
hashes the CPU model and flags, the CPUs this process may use, both runtimes'
versions and the model's weights, so another machine or an upgrade measures again.
Torch is chosen only when it is at least :data:`MARGIN` times as fast and its vectors
match ONNX's on the calibration set.

``RAGWIRE_BULK_RUNTIME`` overrides the choice: ``onnx`` (never load torch), ``torch``
(use sentence-transformers from the first text when installed), ``auto`` (default).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import threading
import time
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragwire.config import EmbeddingsConfig
from ragwire.providers import onnx_export
from ragwire.providers._runtime import available_cpus

if TYPE_CHECKING:
    from ragwire.stages import Embedder

logger = logging.getLogger(__name__)

ENV = "RAGWIRE_BULK_RUNTIME"
MODES = ("auto", "onnx", "torch")
SWITCH_AFTER = 256
MARGIN = 1.05
ROUNDS = 2
MATCH_COSINE = 0.9999
CALIBRATION_VERSION = 1

# A fixed calibration set: prose of the length ingest chunks have (~150-250 tokens).
_SENTENCES = (
    "The pump stops when the filter is blocked, and the display shows error E-4711.",
    "Patients receiving the drug showed a lower rate of hospital readmission after one year.",
    "Quarterly revenue rose twelve percent, driven by subscriptions and lower support costs.",
    "Charge the battery for three hours before first use; a full charge lasts two days.",
    "The tenant shall keep the premises insured against fire, flood and third-party claims.",
    "Gene expression in macrophages changed within hours of exposure to the inflammatory signal.",
    "To reset the router, hold the button for ten seconds until the light blinks amber.",
    "The committee approved the budget after a long debate about maintenance of the bridges.",
)
CALIBRATION_TEXTS = tuple(
    " ".join(_SENTENCES[(i + j) % len(_SENTENCES)] for j in range(6 + i % 5)) for i in range(48)
)


def mode() -> str:
    """The ``RAGWIRE_BULK_RUNTIME`` setting (``auto`` when unset or unknown)."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value not in MODES:
        logger.warning("%s=%s is not one of %s; using auto", ENV, value, ", ".join(MODES))
        return "auto"
    return value


def torch_available() -> bool:
    """True when sentence-transformers on torch could run here (nothing is imported)."""
    try:
        return all(find_spec(m) is not None for m in ("torch", "sentence_transformers", "langchain_huggingface"))
    except (ImportError, ValueError):  # a module blocked in sys.modules has no spec
        return False


def bulk_embedder(section: EmbeddingsConfig, embedder: Embedder) -> Embedder:
    """The embedder an ingest or sync uses for ``section``: ``embedder`` itself, or a
    :class:`BulkEmbedder` that may move bulk work to sentence-transformers.

    Only an fp32 ``provider: onnx`` of a local sentence-transformers model has a twin
    with the same vectors; anything else (and torch missing, or ``RAGWIRE_BULK_RUNTIME=onnx``)
    gets ``embedder`` back unchanged.
    """
    if section.provider != "onnx" or section.quantize or mode() == "onnx" or not torch_available():
        return embedder
    if onnx_export.source_folder(section.model_id) is None:
        return embedder  # an ONNX folder without its source model: no torch twin to run
    return BulkEmbedder(section, embedder)


class BulkEmbedder:
    """ONNX for queries and small runs; the faster runtime of this machine once a run is bulk."""

    def __init__(self, section: EmbeddingsConfig, onnx: Embedder) -> None:
        self.section = section
        self.onnx = onnx
        self.active = onnx
        self.runtime = "onnx"
        self._seen = 0
        self._decided = False
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the query model (an ingest does it before its first batch)."""
        load = getattr(self.onnx, "load", None)
        if load is not None:
            load()

    def embed_query(self, text: str) -> list[float]:
        return self.onnx.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not self._decided:
            with self._lock:
                self._seen += len(texts)
                if not self._decided and (self._seen > SWITCH_AFTER or mode() == "torch"):
                    self._decide()
        return self.active.embed_documents(texts)

    def _decide(self) -> None:
        self._decided = True
        forced = mode() == "torch"
        record = None if forced else cached_choice(self.section)
        if record is not None and record.get("choice") != "torch":
            return
        try:
            twin = _torch_twin(self.section)
            if record is None and not forced:
                record = calibrate(self.section, self.onnx, twin)
        except Exception as exc:  # a torch that fails to load must not fail the ingest: ONNX works
            logger.warning("bulk embedding stays on ONNX: sentence-transformers failed (%s)",
                           " ".join(str(exc).split())[:200])
            return
        if forced or (record is not None and record.get("choice") == "torch"):
            self.active, self.runtime = twin, "torch"
            logger.info("bulk embedding on sentence-transformers (faster on this machine)")


def _torch_twin(section: EmbeddingsConfig) -> Any:
    from ragwire.providers.embeddings import get_embedding

    return get_embedding({"provider": "huggingface", "model_name": section.model_id,
                          "encode_kwargs": {"batch_size": section.batch_size or 32}})


def machine_key(section: EmbeddingsConfig) -> str:
    """Hash of what decides the faster runtime: CPU model and flags, CPUs, versions, model weights."""
    from importlib.metadata import PackageNotFoundError, version

    versions: dict[str, str | None] = {}
    for pkg in ("onnxruntime", "torch"):
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = None
    folder = onnx_export.source_folder(section.model_id)
    weights = onnx_export.weights_hash(folder) if folder is not None else section.model_id
    data = {"cpu": cpu_signature(), "cpus": available_cpus(), "versions": versions,
            "weights": weights, "version": CALIBRATION_VERSION}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def cpu_signature() -> dict[str, str]:
    """The CPU's model name and flags (from /proc/cpuinfo; the platform's name elsewhere)."""
    info = {"machine": platform.machine(), "model": "", "flags": ""}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and not info["model"]:
                info["model"] = value.strip()
            elif key in ("flags", "Features") and not info["flags"]:
                info["flags"] = " ".join(sorted(value.split()))
    except OSError:
        pass
    info["model"] = info["model"] or platform.processor()
    return info


def cache_path(section: EmbeddingsConfig) -> Path:
    return onnx_export.ragwire_home() / "runtime" / f"{machine_key(section)}.json"


def cached_choice(section: EmbeddingsConfig) -> dict[str, Any] | None:
    """The calibration recorded for this machine and model, or None."""
    try:
        record = json.loads(cache_path(section).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("choice") in ("onnx", "torch") else None


def calibrate(section: EmbeddingsConfig, onnx: Embedder, twin: Embedder) -> dict[str, Any]:
    """Time both runtimes on :data:`CALIBRATION_TEXTS`, compare their vectors, record the choice."""
    import numpy as np

    texts = list(CALIBRATION_TEXTS)
    for emb in (onnx, twin):
        emb.embed_documents(texts[:4])  # load and warm up outside the timing
    best = {"onnx": float("inf"), "torch": float("inf")}
    out: dict[str, Any] = {}
    for _ in range(ROUNDS):
        for name, emb in (("onnx", onnx), ("torch", twin)):
            start = time.perf_counter()
            out[name] = emb.embed_documents(texts)
            best[name] = min(best[name], time.perf_counter() - start)
    a, b = (np.asarray(out[n], dtype=np.float64) for n in ("onnx", "torch"))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    rates = {n: len(texts) / s for n, s in best.items()}
    match = float(cos.min())
    choice = "torch" if match >= MATCH_COSINE and rates["torch"] >= MARGIN * rates["onnx"] else "onnx"
    record = {
        "choice": choice, "onnx_texts_per_s": round(rates["onnx"], 2), "torch_texts_per_s": round(rates["torch"], 2),
        "min_cosine": match, "texts": len(texts), "cpu": cpu_signature().get("model"), "cpus": available_cpus(),
        "model": section.model_id, "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    onnx_export._write_atomic(cache_path(section), json.dumps(record, indent=2))
    logger.info("bulk runtime calibrated: onnx %.1f/s, sentence-transformers %.1f/s -> %s",
                rates["onnx"], rates["torch"], choice)
    return record
