"""Loader hardening (issue #7): non-regular files, symlink loops, zip bombs, conversion time limits,
one parse per PDF, and telling a converter's exception from a ragwire bug."""

from __future__ import annotations

import gc
import logging
import os
import pickle
import signal
import socket
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from ragwire.config import LoaderConfig
from ragwire.errors import LoaderError
from ragwire.loaders import (
    MarkItDownLoader,
    PageLoader,
    base,
    raised_outside_ragwire,
    walk_directory,
)
from ragwire.loaders.office import RATIO_MIN_MEMBER_BYTES, check_office

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "docs"
SHARED_DOCS = Path(os.environ.get("RAGWIRE_BENCH_SHARED", "/work/shared/bench")) / "data" / "docs"
RAGWIRE_DIR = Path(base.__file__).resolve().parents[1]

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs, sockets and fork are POSIX")


def _skips(result) -> dict[str, str]:
    return {path.name: why for path, why in result.skipped}


def _one_line_failure(result: dict, *fragments: str) -> None:
    assert result["success"] is False, result
    assert result["text_content"] is None
    assert "\n" not in result["error"]
    for fragment in fragments:
        assert fragment in result["error"], result["error"]


# --------------------------------------------------------------------------- non-regular files


@posix_only
@pytest.mark.timeout(30)
def test_walk_skips_a_fifo_named_like_a_text_file_without_opening_it(tmp_path):
    # Regression: the text sniff opened x.txt, a FIFO, and the walk hung forever.
    os.mkfifo(tmp_path / "x.txt")
    (tmp_path / "real.txt").write_text("real text\n")

    result = walk_directory(tmp_path)

    assert [p.name for p in result.files] == ["real.txt"]
    assert _skips(result) == {"x.txt": "not a regular file (named pipe (FIFO))"}


@posix_only
def test_walk_skips_a_unix_socket_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative name keeps the socket path under the 108-byte limit
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("live.md")
        result = walk_directory(tmp_path)
    finally:
        server.close()

    assert result.files == []
    assert _skips(result) == {"live.md": "not a regular file (socket)"}


@posix_only
def test_walk_of_a_device_reports_it_instead_of_reading_it():
    result = walk_directory("/dev/null")

    assert result.files == []
    assert result.skipped == [(Path("/dev/null"), "not a regular file (character device)")]


@posix_only
@pytest.mark.timeout(30)
def test_loading_a_fifo_fails_at_once_with_a_one_line_reason(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")

    _one_line_failure(MarkItDownLoader().load(tmp_path / "pipe.md"), "pipe.md: is a named pipe (FIFO), not a regular file")


@posix_only
@pytest.mark.timeout(30)
def test_loading_a_link_to_an_endless_device_fails_instead_of_reading_forever(tmp_path):
    (tmp_path / "zeros.txt").symlink_to("/dev/zero")

    _one_line_failure(MarkItDownLoader().load(tmp_path / "zeros.txt"), "zeros.txt: is a character device")


@posix_only
@pytest.mark.timeout(30)
def test_load_directory_reports_a_fifo_as_a_failed_file(tmp_path):
    os.mkfifo(tmp_path / "queue.txt")
    (tmp_path / "ok.md").write_text("# Fine\n")

    results = MarkItDownLoader().load_directory(tmp_path)

    assert [(r["file_name"], r["success"]) for r in results] == [("ok.md", True), ("queue.txt", False)]
    assert results[1]["error"] == (
        "queue.txt: skipped, not a regular file (named pipe (FIFO)) — only regular files are loaded"
    )


# --------------------------------------------------------------------------- symlink loops


def _loops(root: Path) -> None:
    (root / "self.txt").symlink_to("self.txt")
    (root / "ping.md").symlink_to("pong.md")
    (root / "pong.md").symlink_to("ping.md")
    (root / "good.md").write_text("# Good\n")


def test_walk_skips_symlink_loops_when_following_symlinks(tmp_path):
    # Regression: a looping link aborted the whole walk with "RuntimeError: Symlink loop".
    _loops(tmp_path)

    result = walk_directory(tmp_path, follow_symlinks=True)

    assert [p.name for p in result.files] == ["good.md"]
    assert _skips(result) == {"ping.md": "symlink loop", "pong.md": "symlink loop", "self.txt": "symlink loop"}


def test_walk_reports_symlink_loops_as_not_followed_by_default(tmp_path):
    _loops(tmp_path)

    assert set(_skips(walk_directory(tmp_path)).values()) == {"symlink not followed"}


def test_walk_survives_a_looping_link_inside_a_subfolder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop.pdf").symlink_to("loop.pdf")
    (tmp_path / "sub" / "z.md").write_text("after the loop\n")

    result = walk_directory(tmp_path, recursive=True, follow_symlinks=True)

    assert [p.name for p in result.files] == ["z.md"]
    assert _skips(result) == {"loop.pdf": "symlink loop"}


def test_loading_a_symlink_loop_says_so(tmp_path):
    (tmp_path / "loop.md").symlink_to("loop.md")

    _one_line_failure(MarkItDownLoader().load(tmp_path / "loop.md"), "loop.md: symlink loop — fix or remove the link")


# --------------------------------------------------------------------------- zip bombs


def _docx_with(path: Path, members: dict[str, int], level: int = 1) -> Path:
    """A DOCX-shaped zip whose members hold this many zero bytes each, written in 1 MiB steps."""
    chunk = bytes(2**20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        for name, size in members.items():
            with archive.open(name, "w", force_zip64=True) as member:
                for start in range(0, size, len(chunk)):
                    member.write(chunk[: min(len(chunk), size - start)])
    return path


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """A 0.9 MB DOCX whose document part inflates to 200 MiB of zeros."""
    return _docx_with(tmp_path_factory.mktemp("bomb") / "bomb.docx", {"word/document.xml": 200 * 2**20})


def test_zip_bomb_docx_is_refused_by_its_compression_ratio_without_inflating_it(bomb):
    tracemalloc.start()
    try:
        result = MarkItDownLoader().load(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    _one_line_failure(
        result,
        "bomb.docx: part word/document.xml unpacks",
        "200.0 MB), over the limit of 100 (loader.max_compression_ratio)",
        "raise loader.max_compression_ratio",
    )
    assert bomb.stat().st_size < 2**20
    assert peak < 8 * 2**20  # the file's bytes and the central directory, never the 200 MiB


def test_zip_bomb_is_refused_by_total_size_under_a_lower_limit(bomb):
    loader = MarkItDownLoader(max_uncompressed_mb=50, max_compression_ratio=10_000)

    _one_line_failure(
        loader.load(bomb),
        "bomb.docx: unpacks to 200.0 MB, over the 50 MB limit (loader.max_uncompressed_mb)",
        "raise loader.max_uncompressed_mb",
    )


def test_small_highly_compressible_parts_never_trip_the_ratio_check(tmp_path):
    # Styles and settings parts compress 40:1 in real files; only parts over 1 MiB are judged.
    path = _docx_with(tmp_path / "styles.docx", {"word/styles.xml": RATIO_MIN_MEMBER_BYTES}, level=9)
    data = path.read_bytes()

    assert len(data) < RATIO_MIN_MEMBER_BYTES / 500
    check_office(data, path.name, ".docx", max_uncompressed_mb=512, max_compression_ratio=2)


def test_the_zip_checks_run_for_page_loader_slides_too(bomb, tmp_path):
    deck = tmp_path / "deck.pptx"
    deck.write_bytes(bomb.read_bytes())

    _one_line_failure(PageLoader().load(deck), "deck.pptx: part word/document.xml unpacks", "max_compression_ratio")


@pytest.mark.skipif(not SHARED_DOCS.is_dir(), reason="the shared real-world corpus is not here")
def test_every_real_office_file_of_the_shared_corpus_passes_the_default_zip_limits():
    loader = MarkItDownLoader()
    checked = 0
    for path in sorted(SHARED_DOCS.iterdir()):
        ext = path.suffix.lower()
        data = path.read_bytes()
        if ext not in (".docx", ".pptx", ".xlsx", ".xlsm") or not zipfile.is_zipfile(path):
            continue
        loader._check_office(data, path.name, ext)
        checked += 1
    assert checked >= 15


# --------------------------------------------------------------------------- constructor limits


def test_loader_limit_defaults_equal_the_config_defaults():
    config, loader = LoaderConfig(), PageLoader()

    assert loader.max_file_size_mb == config.max_file_size_mb
    assert loader.max_uncompressed_mb == config.max_uncompressed_mb
    assert loader.max_compression_ratio == config.max_compression_ratio
    assert loader.timeout_s == config.timeout_s


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_uncompressed_mb": 0}, "max_uncompressed_mb must be positive, got 0"),
        ({"max_compression_ratio": 1}, "max_compression_ratio must be above 1, got 1"),
        ({"timeout_s": -5}, "timeout_s must be positive, got -5"),
        ({"timeout_s": float("nan")}, "timeout_s must be positive, got nan"),
        ({"timeout_s": "300"}, "timeout_s must be a number, got '300'"),
        ({"max_uncompressed_mb": True}, "max_uncompressed_mb must be a number, got True"),
    ],
)
def test_loader_limits_are_validated_when_built(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MarkItDownLoader(**kwargs)


def test_a_loader_survives_pickling_for_spawned_conversion_processes():
    loader = PageLoader(timeout_s=7)
    loader.load(EXAMPLES / "release-notes.docx")  # converters created and cached

    assert pickle.loads(pickle.dumps(loader)).timeout_s == 7


# --------------------------------------------------------------------------- conversion time limit


def _fake_pdf(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_bytes(b"%PDF-1.4 stand-in; the test's converter never parses it\n")
    return path


def _converter(behaviour):
    """A stand-in for MarkItDownLoader._convert_binary that runs ``behaviour(name)`` in the child."""

    def convert(self, data, name, ext):
        return behaviour(name)

    return convert


@posix_only
def test_a_converter_slower_than_timeout_s_fails_only_its_file_within_the_limit(tmp_path, monkeypatch):
    def behaviour(name):
        if name.startswith("slow"):
            time.sleep(60)
        return f"text of {name}"

    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(behaviour))
    loader = MarkItDownLoader(timeout_s=1)
    files = [_fake_pdf(tmp_path, "a.pdf"), _fake_pdf(tmp_path, "slow.pdf"), tmp_path / "notes.txt"]
    files[2].write_text("plain notes\n")
    loader.load(files[0])  # the first load imports markitdown in this process: keep it off the clock

    started = time.monotonic()
    results = loader.load_batch(files)
    elapsed = time.monotonic() - started

    assert [r["success"] for r in results] == [True, False, True]
    assert results[0]["text_content"] == "text of a.pdf"
    assert results[1]["error"] == (
        "slow.pdf: conversion took longer than 1 s (loader.timeout_s) — the file may be malformed"
        " or very large; raise loader.timeout_s or split the file"
    )
    assert elapsed < 1 + 3


@posix_only
def test_a_timed_out_conversion_raises_a_one_line_loader_error(tmp_path, monkeypatch):
    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(lambda name: time.sleep(60)))

    with pytest.raises(LoaderError, match=r"^late\.pdf: conversion took longer than 0\.5 s \(loader\.timeout_s\) — [^\n]*$"):
        MarkItDownLoader(timeout_s=0.5).convert(_fake_pdf(tmp_path, "late.pdf"))


@posix_only
def test_page_loader_conversions_have_the_time_limit_too(tmp_path, monkeypatch):
    monkeypatch.setattr(PageLoader, "_pages", _converter(lambda name: time.sleep(60)))

    result = PageLoader(timeout_s=0.5).load(_fake_pdf(tmp_path, "slides.pdf"))

    _one_line_failure(result, "slides.pdf: conversion took longer than 0.5 s (loader.timeout_s)")
    assert result["pages"] is None


@posix_only
def test_a_conversion_process_that_is_killed_fails_only_its_file(tmp_path, monkeypatch):
    def behaviour(name):
        if name == "huge.pdf":
            os.kill(os.getpid(), signal.SIGKILL)  # what the out-of-memory killer does
        return f"text of {name}"

    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(behaviour))

    results = MarkItDownLoader().load_batch([_fake_pdf(tmp_path, "huge.pdf"), _fake_pdf(tmp_path, "fine.pdf")])

    _one_line_failure(results[0], "huge.pdf: the conversion process was killed (SIGKILL, usually the out-of-memory killer)")
    assert results[1]["text_content"] == "text of fine.pdf"


@posix_only
def test_log_records_of_the_conversion_process_reach_the_parents_handlers(tmp_path, monkeypatch, caplog):
    def behaviour(name):
        logging.getLogger("ragwire.loaders.test").warning("%s: page 3 left empty", name)
        return "text"

    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(behaviour))

    with caplog.at_level(logging.WARNING, logger="ragwire"):
        assert MarkItDownLoader().load(_fake_pdf(tmp_path, "logged.pdf"))["success"]

    assert ("ragwire.loaders.test", logging.WARNING, "logged.pdf: page 3 left empty") in caplog.record_tuples


@posix_only
def test_garbage_of_the_parent_is_never_finalized_in_the_conversion_process(tmp_path, monkeypatch):
    # Regression: the child's garbage collector finalized a dead onnxruntime session of the
    # parent, whose destructor waited forever for threads that do not exist after fork.
    marker = tmp_path / "finalized-by"

    class Resource:
        def __del__(self):
            with open(marker, "a") as handle:
                handle.write(f"{os.getpid()}\n")

    def behaviour(name):
        gc.collect()
        return "text"

    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(behaviour))
    gc.disable()
    try:
        cycle = Resource()
        cycle.self = cycle
        del cycle  # garbage now, collectable only by the cycle collector
        assert MarkItDownLoader().load(_fake_pdf(tmp_path, "gc.pdf"))["success"]
    finally:
        gc.enable()
    gc.collect()

    assert marker.read_text().split() == [str(os.getpid())]


# --------------------------------------------------------------------------- one parse per PDF


def test_a_readable_pdf_is_parsed_once_by_markitdown_without_pypdf(monkeypatch):
    def no_pypdf(data, name):
        raise AssertionError("pypdf opened a PDF that markitdown read")

    monkeypatch.setattr(base, "open_pdf", no_pypdf)

    result = MarkItDownLoader().load(EXAMPLES / "warranty-policy.pdf")

    assert result["success"], result["error"]
    assert "24 months" in result["text_content"]


def test_page_loader_reads_a_pdf_with_pypdf_alone(monkeypatch):
    def no_markitdown(self, data, name, ext):
        raise AssertionError("markitdown parsed a PDF PageLoader had read with pypdf")

    monkeypatch.setattr(MarkItDownLoader, "_convert_with_markitdown", no_markitdown)

    result = PageLoader().load(EXAMPLES / "warranty-policy.pdf")

    assert result["success"], result["error"]
    assert len(result["pages"]) == 2


# --------------------------------------------------------------------------- converter bug or ours?

# Where a converter lives when ragwire was cloned into a folder named "ragwire" and
# installed into a venv inside it: the path contains /ragwire/ but is not the package.
FOREIGN_FILE = "/tmp/x/ragwire/site-packages/markitdown/conv.py"


def _foreign(source: str, function: str):
    namespace: dict = {"os": os}
    exec(compile(source, FOREIGN_FILE, "exec"), namespace)  # noqa: S102 — a stand-in converter module
    return namespace[function]


def _raised_by(function, *args) -> BaseException:
    try:
        function(*args)
    except Exception as exc:  # noqa: BLE001 — the test inspects whatever was raised
        return exc
    raise AssertionError("nothing was raised")


def test_a_converter_type_error_under_a_path_containing_ragwire_is_third_party():
    convert = _foreign("def convert(stream):\n    return len(stream) + 1\n", "convert")

    exc = _raised_by(convert, object())

    assert isinstance(exc, TypeError)
    assert "/ragwire/" in FOREIGN_FILE  # the old substring test called this ragwire's own bug
    assert raised_outside_ragwire(exc) is True


def test_a_type_error_raised_in_ragwire_code_is_ours():
    exc = _raised_by(base.tidy_text, b"bytes, not text")

    assert isinstance(exc, TypeError)
    assert raised_outside_ragwire(exc) is False


def test_standard_library_frames_do_not_decide_whose_bug_it_is():
    ours = _raised_by(base.as_path, None)  # TypeError raised inside pathlib, called by ragwire
    theirs = _raised_by(_foreign("def convert(part):\n    return os.path.join(part)\n", "convert"), None)

    assert isinstance(ours, TypeError) and isinstance(theirs, TypeError)
    assert raised_outside_ragwire(ours) is False
    assert raised_outside_ragwire(theirs) is True


def test_ragwire_reached_through_a_symlink_is_still_ragwire(tmp_path):
    link = tmp_path / "linked-install"
    link.symlink_to(RAGWIRE_DIR, target_is_directory=True)
    namespace: dict = {}
    exec(compile("def f():\n    raise TypeError('ours')\n", str(link / "loaders" / "fake.py"), "exec"), namespace)  # noqa: S102

    assert raised_outside_ragwire(_raised_by(namespace["f"])) is False


@posix_only
def test_a_converters_type_error_fails_only_that_file_even_under_a_ragwire_named_path(tmp_path, monkeypatch):
    broken = _foreign("def convert(name):\n    raise TypeError('unsupported operand for ' + name)\n", "convert")
    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(broken))

    result = MarkItDownLoader().load(_fake_pdf(tmp_path, "odd.pdf"))

    _one_line_failure(result, "odd.pdf: the converter failed (TypeError: unsupported operand for odd.pdf)")


@posix_only
def test_a_ragwire_bug_in_the_conversion_process_is_raised_not_hidden(tmp_path, monkeypatch):
    monkeypatch.setattr(MarkItDownLoader, "_convert_binary", _converter(lambda name: base.tidy_text(b"oops")))

    with pytest.raises(TypeError) as caught:
        MarkItDownLoader().load(_fake_pdf(tmp_path, "bug.pdf"))

    assert raised_outside_ragwire(caught.value) is False
    assert "tidy_text" in str(caught.value.__cause__)  # the child's traceback comes along


def test_a_ragwire_bug_in_slide_parsing_is_not_reported_as_a_bad_file(monkeypatch):
    from ragwire.loaders import page_loader

    monkeypatch.setattr(page_loader, "_slide_page", lambda number, slide: base.tidy_text(None))

    with pytest.raises(AttributeError):
        PageLoader().load(EXAMPLES / "onboarding.pptx")
