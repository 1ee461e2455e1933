"""Shared helpers for integration tests: configs in tmp_path, small corpora."""

from __future__ import annotations

from pathlib import Path

import yaml


_API_PROVIDERS = {"openai", "ollama", "openrouter", "google"}


def write_config(tmp_path: Path, *, engine: str = "edge", **sections) -> Path:
    """A config.yaml under tmp_path using the packaged MiniLM model, offline.

    The model runs on ONNX, as in the default config: a process that loads it imports no torch,
    so a CLI or server subprocess starts in about a second instead of ten, and queries embed
    several times faster (pass ``embeddings={"provider": "huggingface"}`` for the torch path).
    """
    vectorstore = {"collection_name": "test_docs", "use_sparse": True}
    if engine == "edge":
        vectorstore["path"] = str(tmp_path / "store")
    else:
        vectorstore.update(engine="qdrant", path=str(tmp_path / "qdrant"))
    data = {
        "embeddings": {
            "provider": "onnx",
            "model_name": "sentence-transformers/all-MiniLM-L6-v2",
        },
        "vectorstore": vectorstore,
        "splitter": {"strategy": "markdown", "chunk_size": 400, "chunk_overlap": 40},
        "logging": {"level": "WARNING"},
    }
    for key, value in sections.items():
        base = data.get(key)
        # An API provider reads `model`, not the local runtimes' `model_name`: its section starts afresh.
        switches = isinstance(value, dict) and value.get("provider") in _API_PROVIDERS
        if isinstance(value, dict) and isinstance(base, dict) and not switches:
            data[key] = {**base, **value}
        else:
            data[key] = value
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# Prose about unrelated everyday topics; one paragraph hides an identifier,
# several carry look-alike part numbers, and one describes charging without
# any of the words the paraphrase query uses.
TOPICS = {
    "garden.md": "# Garden\n\nTomatoes need six hours of sun and deep watering twice a week. "
    "Mulch keeps the soil moist in July. Replacement valve ZX-9981-Q fits the drip irrigation kit.",
    "kitchen.md": "# Kitchen\n\nBake the bread at 220 degrees for forty minutes until the crust is dark. "
    "Let the dough rest overnight in the fridge. Order part ZX-9918-Q for a spare.",
    "charging.md": "# Docking\n\nDock the robot at its charging station every night. "
    "A full charge takes three hours, and the status light turns green when it is done.",
    "battery-safety.md": "# Battery safety\n\nNever store a battery near a heater. A swollen battery must be "
    "replaced; battery recycling bins are at the depot. Battery labels list the duration of the warranty.",
    "battery-shipping.md": "# Shipping batteries\n\nBattery packs ship by ground only. Declare every battery "
    "on the form; a recharge cycle before shipping is not required for the battery.",
    "cycling.md": "# Cycling\n\nPump the tyres to the pressure printed on the sidewall. Oil the chain "
    "every two hundred kilometres and check the brake pads monthly. Order part ZX-8991-Q for a spare.",
    "birds.md": "# Birds\n\nRobins sing at dawn in early spring. Feeders with sunflower seeds attract finches. Order part ZX-9981-O for a spare.",
    "tax.md": "# Taxes\n\nKeep receipts for seven years. The filing deadline moves when it falls on a weekend. Order part XZ-1998-Q for a spare.",
    "music.md": "# Piano\n\nPractise scales slowly with a metronome, then raise the tempo by four beats.",
    "travel.md": "# Travel\n\nCarry a copy of your passport and keep the original in the hotel safe.",
}


def ingested(root: Path, docs: dict[str, str]):
    """A RAGWire over ``docs`` (file name -> text), written under ``root`` and ingested with the
    packaged offline model; every file must load."""
    from ragwire import RAGWire

    folder = root / "docs"
    folder.mkdir()
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    rag = RAGWire(write_config(root))
    assert rag.ingest_directory(folder)["failed"] == 0
    return rag


def cited_files(answer) -> set[str]:
    """The file names an answer cites."""
    return {Path(c.source).name for c in answer.citations}


def write_topics(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in TOPICS.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


# metadata.yaml of the LLM-extraction tests: a company and a fiscal year per document.
COMPANY_YEAR_SCHEMA = """\
fields:
  - name: company
    type: str
    description: "The company the document is about"
  - name: year
    type: int
    description: "The fiscal year the document reports on"
"""


def as_onnx_export_version_1(export: Path) -> None:
    """Turn ``export`` into the first layout: the weights inside model.onnx, no data file."""
    import json

    import onnx

    from ragwire.providers import onnx_export

    model = onnx.load(str(export / onnx_export.ONNX_FILE))
    (export / onnx_export.DATA_FILE).unlink()
    onnx.save_model(model, str(export / onnx_export.ONNX_FILE))
    manifest = onnx_export.read_manifest(export)
    del manifest["data_bytes"]
    manifest.update(export_version=1, onnx_bytes=(export / onnx_export.ONNX_FILE).stat().st_size)
    (export / onnx_export.MANIFEST).write_text(json.dumps(manifest))
