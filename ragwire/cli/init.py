"""``ragwire init``: a commented config.yaml (and, on request, metadata.yaml and a golden set) in a folder.

The templates ship inside the package (``ragwire/templates``), so a user who installed
ragwire from a package index starts from the same files as the repository's examples.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import click

from .errors import handle_errors

# template name in ragwire/templates -> the file it becomes
_FILES = {"config.yaml": "config.yaml", "metadata.yaml": "metadata.yaml", "golden.yaml": "golden.yaml"}


def template_text(name: str) -> str:
    """The text of a packaged template (``config.yaml``, ``metadata.yaml``, ``golden.yaml``)."""
    return resources.files("ragwire").joinpath("templates", name).read_text(encoding="utf-8")


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=".")
@click.option("--metadata", "with_metadata", is_flag=True,
              help="Also write metadata.yaml: the fields an LLM extracts from each document.")
@click.option("--golden", "with_golden", is_flag=True,
              help="Also write golden.yaml: an example golden set for `ragwire eval`.")
@handle_errors
def init(folder: Path, with_metadata: bool, with_golden: bool) -> None:
    """Write a commented config.yaml into FOLDER (default: here); never overwrites a file."""
    wanted = ["config.yaml"] + (["metadata.yaml"] if with_metadata else []) + (["golden.yaml"] if with_golden else [])
    targets = [folder / _FILES[name] for name in wanted]
    present = [str(t) for t in targets if t.exists()]
    if present:
        verb = "exists" if len(present) == 1 else "exist"
        raise click.UsageError(f"{' and '.join(present)} already {verb}; ragwire init never overwrites a file: "
                               "edit it, or move it away first")
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in zip(wanted, targets, strict=True):
        with open(target, "x", encoding="utf-8") as handle:  # "x": a file made meanwhile is not overwritten
            handle.write(template_text(name))
        click.echo(f"wrote {target}")
    config = targets[0]
    where = "" if folder == Path(".") else f" --config {config}"
    click.echo("next:\n"
               f"  ragwire ingest ./docs{where}          # your documents (PDF, Word, slides, HTML, text, images)\n"
               f"  ragwire query \"your question\"{where}   # an answer with citations, or a refusal\n"
               f"  ragwire serve{where}                   # the web page on http://127.0.0.1:8080")
