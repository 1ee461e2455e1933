"""``ragwire model prepare``: export a local embedding model to ONNX for ``provider: onnx``."""

from __future__ import annotations

import click

from .errors import handle_errors


@click.group()
def model() -> None:
    """Prepare local embedding models."""


@model.command()
@click.option("--model", "name", default="sentence-transformers/all-MiniLM-L6-v2", show_default=True,
              help="A local sentence-transformers folder, or the packaged model's name.")
@click.option("--force", is_flag=True, help="Rebuild even when a valid export is cached.")
@click.option("--quantize", type=click.Choice(["int8"]), default=None,
              help="Also make the int8 variant (embeddings.quantize: int8), checked against full precision.")
@handle_errors
def prepare(name: str, force: bool, quantize: str | None) -> None:
    """Export NAME to ONNX for `provider: onnx`, verified against sentence-transformers (cached)."""
    from ..providers import prepare_onnx_model, prepare_quantized_model
    from ..providers.onnx_export import read_manifest

    path = prepare_onnx_model(name, force=force)
    cosine = read_manifest(path).get("min_cosine")
    check = f" (min cosine vs sentence-transformers {cosine:.6f})" if isinstance(cosine, float) else ""
    click.echo(f"{name}: ONNX export ready at {path}{check}")
    if quantize:
        path = prepare_quantized_model(name, quantize, force=force)
        cosine = read_manifest(path).get("min_cosine")
        check = f" (min cosine vs full precision {cosine:.4f})" if isinstance(cosine, float) else ""
        click.echo(f"{name}: {quantize} variant ready at {path}{check}")
