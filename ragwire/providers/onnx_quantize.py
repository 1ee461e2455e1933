"""The int8 variant of an ONNX export (``embeddings.quantize: int8``), checked against full precision.

It is made on this machine from the full-precision export (see
:mod:`ragwire.providers.onnx_export`) with ONNX Runtime's dynamic quantization and
lives beside it, in ``$RAGWIRE_HOME/onnx/<name>-<hash12>-int8/``.  The recipe is the
one that measured best here (docs/embeddings.md): weights of the dense layers (the
MatMuls with a constant weight) quantized to int8 **per output channel**; the
embedding tables (Gather), the attention products of two activations, LayerNorm,
softmax and GELU stay in fp32.  Per-tensor weights, ONNX Runtime's default, lost
far more (cosine 0.90 against fp32 for some texts) because a few channels of each
weight matrix have much larger values than the rest.

The check compares the variant's vectors with the full-precision export's over a
fixed probe set and refuses to publish it below :data:`MIN_COSINE`; it warns
below :data:`WARN_COSINE`.  An int8 model gives other vectors than the model it
came from, so it is recorded under its own identity (``onnx-int8:<model>``) and a
collection built with one never receives vectors from the other.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path

from ragwire.errors import ProviderError
from ragwire.providers import onnx_export
from ragwire.providers._config import require
from ragwire.providers._runtime import PACKAGED_MODEL

logger = logging.getLogger(__name__)

MODES = ("int8",)
# Bump when the recipe changes, so variants made by an older one are rebuilt.
QUANTIZE_VERSION = 1
# Refuse below, warn below. Measured here: min 0.992 over 200 SciFact abstracts, 0.980 on the
# probes (the one-character text "x" is the worst); see docs/embeddings.md.
MIN_COSINE = 0.97
WARN_COSINE = 0.975
RECIPE = {
    "method": "onnxruntime dynamic quantization",
    "weights": "int8, per output channel",
    "activations": "uint8, per tensor, computed at run time",
    "quantized": "MatMul with a constant weight (the dense layers)",
    "kept_fp32": "embedding Gather, attention MatMuls, LayerNorm, Softmax, GELU",
}

# Everyday, technical and odd texts, short and past the 256-token window: the check must see
# the kinds of input a collection holds, not only sentences like the training data.
PROBES = onnx_export._PROBES + (
    "Reset the router by holding the button for ten seconds until the light blinks amber.",
    "The patient presented with acute dyspnea and bilateral pulmonary infiltrates.",
    "Quarterly revenue rose 12% to $4.3 billion, driven by cloud subscriptions.",
    "def merge(a, b): return sorted(a + b)  # merge two lists",
    "Tomatoes need six to eight hours of direct sunlight a day.",
    "Section 4.2: the lessee shall maintain insurance covering the premises.",
    "Mitochondrial dysfunction contributes to neurodegeneration in Parkinson's disease.",
    "SELECT name, count(*) FROM orders GROUP BY name HAVING count(*) > 3;",
    "Wie lange dauert die Lieferung nach Österreich?",
    "Error 0x80070005: access denied while writing C:\\Program Files\\app\\config.ini",
    "A full charge takes about three hours with the supplied 65 W adapter.",
    " ".join(["Glucocorticoid receptor signalling modulates the inflammatory response in macrophages."] * 12),
)


def variant_dir(base: Path, mode: str) -> Path:
    """Where the ``mode`` variant of the full-precision export at ``base`` is cached."""
    return base.with_name(f"{base.name}-{mode}")


def is_valid_variant(path: Path, mode: str, digest: str | None = None) -> bool:
    """True when ``path`` holds a complete ``mode`` variant made by the current recipe."""
    if not onnx_export.is_valid_export(path, digest):
        return False
    manifest = onnx_export.read_manifest(path)
    return manifest.get("quantize") == mode and manifest.get("quantize_version") == QUANTIZE_VERSION


def can_build() -> bool:
    """True when the variant can be made here (``onnx`` for the quantizer; nothing is imported)."""
    from importlib.util import find_spec

    return find_spec("onnx") is not None and find_spec("onnxruntime") is not None


def cached_variant(name: str, mode: str) -> Path:
    """The valid cached ``mode`` variant of ``name``: made now if missing (the full-precision
    export first, if that is missing too), else a ProviderError with the command that makes it.
    """
    _check_mode(mode)
    folder = onnx_export.source_folder(name)
    if folder is not None:
        digest = onnx_export.weights_hash(folder)
        target = variant_dir(onnx_export.export_dir(name, folder, digest), mode)
        if is_valid_variant(target, mode, digest):
            return target
        onnx_export.before_building(f"the {mode} ONNX variant", name, target, can_build(), f" --quantize {mode}")
    return prepare(name, mode, force=True)


def prepare(name: str = PACKAGED_MODEL, mode: str = "int8", *, force: bool = False) -> Path:
    """Return the cached ``mode`` variant of ``name``'s ONNX export, making and checking it if needed.

    Args:
        name: a local sentence-transformers folder, or the packaged all-MiniLM-L6-v2's name.
        mode: the variant (``"int8"``).
        force: rebuild the variant even when a valid one is cached (the fp32 export is kept).

    Returns:
        The variant's folder.

    Raises:
        ProviderError: the model is not found, or the variant's vectors are too far from fp32's.
        MissingDependencyError: ``onnx`` is missing (or torch, when the fp32 export must be built).
    """
    _check_mode(mode)
    base = onnx_export.prepare(name)
    digest = onnx_export.read_manifest(base).get("weights_sha256")
    target = variant_dir(base, mode)
    if not force and is_valid_variant(target, mode, digest):
        if onnx_export.read_manifest(target).get("export_version") != onnx_export.EXPORT_VERSION:
            onnx_export.upgrade(target, digest)
        return target
    require("onnx", f"embeddings.quantize: {mode}", "onnx", "onnx-export")
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        worst, mean = _quantize(base, tmp)
        manifest = dict(onnx_export.read_manifest(base))
        manifest.update({
            "export_version": onnx_export.EXPORT_VERSION,
            "onnx_bytes": (tmp / onnx_export.ONNX_FILE).stat().st_size,
            "data_bytes": (tmp / onnx_export.DATA_FILE).stat().st_size,
            "quantize": mode,
            "quantize_version": QUANTIZE_VERSION,
            "recipe": RECIPE,
            # the check of this variant is against the fp32 export, not sentence-transformers
            "min_cosine": worst,
            "mean_cosine": mean,
            "checked_against": str(base),
            "probes": len(PROBES),
        })
        (tmp / onnx_export.MANIFEST).write_text(json.dumps(manifest, indent=2))
        onnx_export.publish(tmp, target, lambda: is_valid_variant(target, mode, digest))
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    logger.info("made the %s variant of %s at %s (min cosine vs fp32 %.4f)", mode, name, target, worst)
    return target


def _quantize(base: Path, out: Path) -> tuple[float, float]:
    """Write the int8 graph of ``base`` to ``out``; return the (worst, mean) probe cosine vs fp32."""
    import numpy as np
    from onnxruntime.quantization import QuantType, quantize_dynamic

    for item in base.iterdir():
        if item.name in (onnx_export.ONNX_FILE, onnx_export.DATA_FILE, onnx_export.MANIFEST):
            continue
        if item.is_dir():
            shutil.copytree(item, out / item.name)
        else:
            shutil.copyfile(item, out / item.name)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a pre-processing hint on the root logger
    try:
        quantize_dynamic(
            str(base / onnx_export.ONNX_FILE), str(out / onnx_export.ONNX_FILE),
            weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"],
        )
    finally:
        root.setLevel(level)
    onnx_export.store_weights_apart(out)

    from ragwire.providers.onnx import OnnxEmbeddings

    texts = list(PROBES)
    expected = np.asarray(OnnxEmbeddings(base).embed_documents(texts), dtype=np.float64)
    got = np.asarray(OnnxEmbeddings(out).embed_documents(texts), dtype=np.float64)
    cos = onnx_export._cosines(expected, got)
    worst, mean = float(cos.min()), float(cos.mean())
    if worst < MIN_COSINE:
        raise ProviderError(
            f"int8 ONNX variant of {base.name}: vectors too far from full precision "
            f"(min cosine {worst:.4f} < {MIN_COSINE}); the variant was discarded, use quantize: null"
        )
    if worst < WARN_COSINE:
        logger.warning("the int8 variant of %s is close to its limit (min cosine vs fp32 %.4f)", base.name, worst)
    return worst, mean


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ProviderError(f"embeddings.quantize: unknown mode {mode!r} (valid: {', '.join(MODES)})")
