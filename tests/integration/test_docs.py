"""The documentation's examples run: every ```python block and every `$ ragwire …` line.

Each page of ``docs/*.md`` (and ``README.md``) runs its blocks in order, in one
namespace, in a fresh working folder that looks like the repository after the
quickstart: ``config.yaml`` copied from ``config.yaml.example`` and
``examples/docs`` already ingested into ``./.ragwire_data``.  The ingest happens
once; each page gets a copy of that folder restored at the same path, so the
stored source paths stay valid.

Markers, on the line right before a fenced block:

    <!-- no-test -->          the block is not run (needs a server, a key, …)
    <!-- file: NAME -->       the block's text is written to NAME in the working folder
    <!-- exit-code: N -->     every `$ ragwire` command in the block must exit with N (default 0)

and anywhere on a page:

    <!-- docs-test: fresh -->  the page starts without the ingested collection

`$ ragwire …` lines run in this process through click's CliRunner, so the
embedding model is loaded once for all pages.  In console blocks, output lines
starting with ``error:`` or ``Error:`` (and every output line of a block expecting
a non-zero exit) must appear in what the command printed, so documented error
messages stay true; an ellipsis (…) in such a line stands for any text (a path,
say).  YAML blocks that look like a config, or part of one, are validated with
the real config loader.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]

_FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
_MARK = re.compile(r"<!--\s*(no-test|file:\s*(?P<file>\S+)|exit-code:\s*(?P<code>\d+))\s*-->")
_SECTIONS = {
    "loader", "splitter", "ingestion", "embeddings", "llm", "metadata", "vectorstore",
    "retriever", "sources", "generation", "logging",
}
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Block:
    lang: str
    text: str
    line: int  # 1-based line of the opening fence
    skip: bool = False
    file: str | None = None
    exit_code: int = 0


def blocks_of(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        assert end is not None, f"{page.name}:{i + 1}: unclosed code block"
        block = Block(opened.group(1).lower(), "\n".join(lines[i + 1:end]) + "\n", i + 1)
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        for mark in _MARK.finditer(before):
            if mark.group(1) == "no-test":
                block.skip = True
            elif mark.group("file"):
                block.file = mark.group("file")
            elif mark.group("code"):
                block.exit_code = int(mark.group("code"))
        found.append(block)
        i = end + 1
    return found


def commands_of(block: Block) -> list[tuple[list[str], list[str]]]:
    """`$ ragwire …` lines of a console block, each with the output lines shown after it."""
    commands: list[tuple[list[str], list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            argv = shlex.split(line[2:])
            commands.append((argv, []))
        elif commands:
            commands[-1][1].append(line)
    return [(argv, shown) for argv, shown in commands if argv and argv[0] == "ragwire"]


# -- the working folder ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def docs_folders(tmp_path_factory):
    """(work, snapshot, fresh): the folder pages run in, and two states to restore it from."""
    base = tmp_path_factory.mktemp("docs")
    work, snapshot, fresh = base / "work", base / "snapshot", base / "fresh"
    shutil.copytree(REPO / "examples" / "docs", fresh / "examples" / "docs")
    shutil.copy(REPO / "config.yaml.example", fresh / "config.yaml")
    shutil.copytree(fresh, work)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    before = Path.cwd()
    os.chdir(work)
    try:
        from ragwire import RAGWire

        stats = RAGWire("config.yaml").ingest_directory("examples/docs")
        assert stats["failed"] == 0, stats["errors"]
    finally:
        os.chdir(before)
    from ragwire.store import close_all

    close_all()
    shutil.copytree(work, snapshot)
    return work, snapshot, fresh


def _restore(work: Path, source: Path) -> None:
    # Stores stay open briefly after a call; release them before swapping the folder.
    from ragwire.store import close_all

    close_all()
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, work)


def _reset_ragwire_logging() -> None:
    # The CLI points a handler at the (captured) stderr of its run; drop it afterwards.
    logger = logging.getLogger("ragwire")
    for handler in list(logger.handlers):
        if getattr(handler, "_ragwire", False):
            logger.removeHandler(handler)
            handler.close()
    logger.setLevel(logging.NOTSET)


# -- running blocks ------------------------------------------------------------------------------


def run_python(block: Block, namespace: dict, where: str) -> None:
    code = compile(block.text, where, "exec")
    exec(code, namespace)  # noqa: S102 - running the documentation is the point


def _shown_in(line: str, printed: str) -> bool:
    """Whether ``line`` was printed; an ellipsis (…) in it stands for any text."""
    pattern = ".*?".join(re.escape(part) for part in line.split("…"))
    return re.search(pattern, printed) is not None


def run_console(block: Block, where: str) -> None:
    from click.testing import CliRunner

    from ragwire.cli import main

    for argv, shown in commands_of(block):
        result = CliRunner().invoke(main, argv[1:], catch_exceptions=True)
        _reset_ragwire_logging()
        printed = result.output  # click >= 8.2: stdout and stderr, interleaved
        assert result.exit_code == block.exit_code, (
            f"{where}: `{shlex.join(argv)}` exited {result.exit_code}, "
            f"expected {block.exit_code}\n{printed}\n{result.exception!r}"
        )
        for line in shown:
            # a failing command's output is checked whole; elsewhere only error lines
            if line.strip() and (block.exit_code or line.startswith(("error:", "Error:"))):
                assert _shown_in(line.strip(), printed), (
                    f"{where}: documented line not printed: {line!r}\n{printed}"
                )


def check_yaml(block: Block, where: str, monkeypatch) -> None:
    from ragwire.config import parse_config

    data = yaml.safe_load(block.text)
    if not isinstance(data, dict) or not set(data) <= _SECTIONS:
        return  # not a config fragment (e.g. metadata.yaml or a golden set)
    data.setdefault("embeddings", {"provider": "huggingface"})
    for name in _ENV_REF.findall(block.text):
        if name not in os.environ:
            monkeypatch.setenv(name, "example-value")
    parse_config(data, base_dir=Path.cwd(), source=where)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_run(page: Path, docs_folders, monkeypatch) -> None:
    work, snapshot, fresh = docs_folders
    text = page.read_text(encoding="utf-8")
    _restore(work, fresh if "<!-- docs-test: fresh -->" in text else snapshot)
    monkeypatch.chdir(work)
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks_of(page):
        where = f"{page.relative_to(REPO)}:{block.line}"
        if block.skip:
            continue
        if block.file:
            (work / block.file).parent.mkdir(parents=True, exist_ok=True)
            (work / block.file).write_text(block.text, encoding="utf-8")
            continue
        if block.lang == "python":
            run_python(block, namespace, where)
        elif block.lang in ("console", "bash", "shell", "sh"):
            run_console(block, where)
        elif block.lang in ("yaml", "yml"):
            check_yaml(block, where, monkeypatch)
    _reset_ragwire_logging()


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a page (headings inside code blocks do not count)."""
    anchors, fence = set(), ""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")) and (not fence or line.startswith(fence)):
            fence = "" if fence else line[:3]
        elif not fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_every_docs_page_is_linked_and_every_link_resolves() -> None:
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    for page in sorted((REPO / "docs").glob("*.md")):
        if page.name != "index.md":
            assert f"({page.name})" in index, f"docs/index.md does not link {page.name}"
    for page in PAGES:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            linked = (page.parent / target) if target else page
            assert linked.exists(), f"{page.relative_to(REPO)}: broken link {target}"
            if anchor:
                where = page.relative_to(REPO)
                assert anchor in _anchors(linked), f"{where}: no heading for #{anchor} in {linked.name}"
