"""The documentation's examples run: every ```python block and every `$ ragwire …` line.

Each page of ``docs/*.md`` (and ``README.md``) runs its blocks in order, in one
namespace, in a fresh working folder that looks like the repository after the
quickstart: ``config.yaml`` copied from ``config.yaml.example`` and
``examples/docs`` already ingested into ``./.ragwire_data``.  The ingest happens
once; each page gets a copy of that folder restored at the same path, so the
stored source paths stay valid.

Markers, on comment lines right before a fenced block (several may stack):

    <!-- no-test -->               the block is not run (needs a server, a key, …)
    <!-- file: NAME -->            the block's text is written to NAME in the working folder
    <!-- exit-code: N -->          every `$ ragwire` command in the block must exit with N (default 0)
    <!-- output: illustrative -->  the output shown is an example, not compared (error lines still are)
    <!-- yaml: not-config -->      a YAML block that is not part of a config.yaml
    <!-- yaml: invalid -->         a config that is wrong on purpose: the loader must reject it

and anywhere on a page:

    <!-- docs-test: fresh -->  the page starts without the ingested collection

`$ ragwire …` lines run in this process through click's CliRunner, so the
embedding model is loaded once for all pages.  The lines shown after a command
are its output: each must match a line it printed, in the same order (other
printed lines may come between).  An ellipsis (…) stands for any text, so write
scores, timings and absolute paths as …, and a line of just … for lines left
out.  Error lines (``error:``, ``Error:``) are compared even in illustrative
output, so documented error messages stay true.

A YAML block is validated with the real config loader, as a whole config or a
part of one, unless it is another kind of YAML: marked ``yaml: not-config``,
written to a file named like ``metadata.yaml`` or ``golden.yaml``, or with
top-level keys that neither are nor resemble config sections.  A misspelled
section (``vectorstor:``) therefore fails with the loader's did-you-mean message.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from ..conftest import copy_sparse

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]

_FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")
_MARK = re.compile(
    r"<!--\s*(no-test|file:\s*(?P<file>\S+)|exit-code:\s*(?P<code>\d+)"
    r"|output:\s*(?P<output>illustrative)|yaml:\s*(?P<yaml>not-config|invalid))\s*-->"
)
_SECTIONS = {
    "loader", "splitter", "ingestion", "embeddings", "llm", "metadata", "vectorstore",
    "retriever", "sources", "generation", "logging",
}
# files a page may write that hold other YAML than a config (an LLM metadata schema, a golden set)
_OTHER_YAML_FILES = {"metadata", "golden"}
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Block:
    lang: str
    text: str
    line: int  # 1-based line of the opening fence
    skip: bool = False
    file: str | None = None
    exit_code: int = 0
    illustrative: bool = False
    yaml_kind: str | None = None  # "not-config" or "invalid"


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
        for mark in _MARK.finditer("\n".join(_comments_above(lines, i))):
            if mark.group(1) == "no-test":
                block.skip = True
            elif mark.group("file"):
                block.file = mark.group("file")
            elif mark.group("code"):
                block.exit_code = int(mark.group("code"))
            elif mark.group("output"):
                block.illustrative = True
            elif mark.group("yaml"):
                block.yaml_kind = mark.group("yaml")
        found.append(block)
        i = end + 1
    return found


def _comments_above(lines: list[str], fence: int) -> list[str]:
    """The comment-only lines just above line ``fence`` (blank lines between them are skipped)."""
    found = []
    for j in range(fence - 1, -1, -1):
        if _COMMENT_LINE.match(lines[j]):
            found.append(lines[j])
        elif lines[j].strip():
            break
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
def docs_folders(tmp_path_factory, ragwire_home):
    """(work, snapshot, fresh): the folder pages run in, and two states to restore it from."""
    # config.yaml.example uses the ONNX export: build it (once) in the session's RAGWIRE_HOME.
    os.environ["RAGWIRE_HOME"] = str(ragwire_home)
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
    copy_sparse(work, snapshot)
    return work, snapshot, fresh


def _restore(work: Path, source: Path) -> None:
    # Stores stay open briefly after a call; release them before swapping the folder.
    from ragwire.store import close_all

    close_all()
    if work.exists():
        shutil.rmtree(work)
    copy_sparse(source, work)


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


def _line_pattern(line: str) -> re.Pattern[str]:
    """A shown output line as a pattern for a whole printed line; an ellipsis (…) stands for any text."""
    return re.compile(".*?".join(re.escape(part) for part in line.strip().split("…")))


def missing_output(shown: list[str], printed: str, *, errors_only: bool = False) -> str | None:
    """The first shown line not printed, in order; None when every one was.

    With ``errors_only`` only the ``error:`` / ``Error:`` lines are looked for.
    """
    lines = [line.strip() for line in printed.splitlines()]
    at = 0
    for line in shown:
        if not line.strip() or (errors_only and not line.lstrip().startswith(("error:", "Error:"))):
            continue
        pattern = _line_pattern(line)
        found = next((i for i in range(at, len(lines)) if pattern.fullmatch(lines[i])), None)
        if found is None:
            return line
        at = found + 1
    return None


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
        missing = missing_output(shown, printed, errors_only=block.illustrative)
        assert missing is None, (
            f"{where}: `{shlex.join(argv)}`: documented line not printed (or out of order): "
            f"{missing!r}\nprinted:\n{printed}"
        )


def is_config(block: Block, data: object) -> bool:
    """Whether a YAML block is (part of) a config.yaml rather than another kind of YAML."""
    if block.yaml_kind == "not-config" or not isinstance(data, dict):
        return False
    if block.file and Path(block.file).name.split(".")[0] in _OTHER_YAML_FILES:
        return False
    # a misspelled section still counts, so that the loader reports it
    return any(
        key in _SECTIONS or difflib.get_close_matches(key, _SECTIONS, n=1, cutoff=0.75)
        for key in map(str, data)
    )


def check_yaml(block: Block, where: str, monkeypatch) -> None:
    """Load a config block with load_config, as ragwire would read it from a file."""
    from ragwire.config import load_config
    from ragwire.errors import ConfigError

    data = yaml.safe_load(block.text)
    if not is_config(block, data):
        return
    text = block.text
    if "embeddings" not in data:
        # a fragment: complete it with the one required section (appended, so line numbers hold)
        text += 'embeddings:\n  provider: "huggingface"\n'
    for name in _ENV_REF.findall(text):
        if name not in os.environ:
            monkeypatch.setenv(name, "example-value")
    # written next to the pages' files, so relative paths resolve as they would for them
    scratch = Path.cwd() / ".docs-block.yaml"
    scratch.write_text(text, encoding="utf-8")
    try:
        load_config(scratch)
    except ConfigError as exc:
        if block.yaml_kind == "invalid":
            return
        raise AssertionError(f"{where}: the config loader rejects this block: {exc}") from None
    finally:
        scratch.unlink()
    assert block.yaml_kind != "invalid", f"{where}: marked `yaml: invalid`, but the config loader accepts it"


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
        if block.lang in ("yaml", "yml"):
            check_yaml(block, where, monkeypatch)
        elif block.file:
            continue  # a file for later blocks to read, not something to run
        elif block.lang == "python":
            run_python(block, namespace, where)
        elif block.lang in ("console", "bash", "shell", "sh"):
            run_console(block, where)
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


# -- the checker's own rules -----------------------------------------------------------------------


def test_a_misspelled_section_in_a_yaml_block_is_reported(tmp_path, monkeypatch) -> None:
    # guards issue #7: a block whose keys were not all known sections used to be skipped unchecked
    monkeypatch.chdir(tmp_path)
    block = Block("yaml", 'vectorstor:\n  collection_name: "handbook"\n', line=3)
    with pytest.raises(AssertionError, match=r"vectorstor: unknown key \(did you mean 'vectorstore'\?\)"):
        check_yaml(block, "page.md:3", monkeypatch)


def test_other_kinds_of_yaml_are_not_checked_as_a_config(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    schema = 'metadata:\n  - name: product\n    type: string\nsource: "catalogue"\n'
    # these keys resemble sections, so only the file name or the marker says it is no config
    with pytest.raises(AssertionError, match="the config loader rejects this block"):
        check_yaml(Block("yaml", schema, line=1), "page.md:1", monkeypatch)
    check_yaml(Block("yaml", schema, line=1, file="metadata.yaml"), "page.md:1", monkeypatch)
    check_yaml(Block("yaml", schema, line=1, yaml_kind="not-config"), "page.md:1", monkeypatch)
    golden = "queries:\n  - question: How long does charging take?\n    expected: [user-guide.md]\n"
    check_yaml(Block("yaml", golden, line=1), "page.md:1", monkeypatch)


def test_a_yaml_block_marked_invalid_must_be_rejected(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    block = Block("yaml", "splitter:\n  chunk_size: 500\n", line=1, yaml_kind="invalid")
    with pytest.raises(AssertionError, match="the config loader accepts it"):
        check_yaml(block, "page.md:1", monkeypatch)


def test_markers_stack_above_a_block_and_output_is_matched_in_order(tmp_path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n<!-- exit-code: 1 -->\n<!-- output: illustrative -->\n\n```console\n$ ragwire stats\n```\n",
        encoding="utf-8",
    )
    [block] = blocks_of(page)
    assert (block.exit_code, block.illustrative, block.line) == (1, True, 6)

    printed = "1. a.md  score=0.0331\n   first snippet\n2. b.md  score=0.0320\nerror: boom at /tmp/x\n"
    assert missing_output(["1. a.md  score=…", "2. b.md  score=…"], printed) is None
    assert missing_output(["2. b.md  score=…", "1. a.md  score=…"], printed) == "1. a.md  score=…"
    assert missing_output(["1. a.md"], printed) == "1. a.md"  # a shown line is a whole printed line
    assert missing_output(["…", "error: boom at …"], printed) is None
    assert missing_output(["made up", "error: boom at …"], printed, errors_only=True) is None
