"""Running a converter safely: in a child process killed after a time limit, and telling its bugs from ours.

A converter (markitdown, pdfminer, pypdf, python-pptx, openpyxl, mammoth…) can loop on a
crafted file, exhaust memory or crash.  A thread cannot be stopped, so each conversion runs
in a child process (forked where the platform allows, so the child inherits the imported
converters and costs milliseconds) that is killed when it runs out of time; a child that
dies fails only its own file.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import signal
import sysconfig
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ragwire.errors import LoaderError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

T = TypeVar("T")

# How often the parent checks that a silent child is still alive (a result wakes it at once).
_TICK_S = 0.25
# How long a child that closed its pipe gets to report its exit code.
_EXIT_GRACE_S = 2.0
# gc.unfreeze() of one thread must not run between another thread's freeze and fork.
_FORK_LOCK = threading.Lock()
# Marks a message from the child that is not its result: more time (OCR pages), or progress.
_NOTE = "ragwire-conversion-note"
# In a conversion child: the pipe to the parent, for extend_deadline() and report_progress().
_CHILD_PIPE: Connection | None = None
# In the parent: where a child's progress lines go (an ingest's progress bar), else the log.
_progress_listener: Callable[[str], None] | None = None
_PACKAGE_DIR = os.path.realpath(Path(__file__).resolve().parent.parent)
_STDLIB_DIRS = tuple(
    {os.path.realpath(path) for key, path in sysconfig.get_paths().items() if key in ("stdlib", "platstdlib")}
)
_SITE_DIRS = ("site-packages", "dist-packages")


def raised_outside_ragwire(exc: BaseException) -> bool:
    """Whether ``exc`` comes from a third-party package (a converter's bug) rather than from ragwire.

    Decided by the innermost frame of its traceback that is not the standard library (so
    ``os.path.join(None)`` called by ragwire is ragwire's): its file, symlinks resolved, is
    compared with the real directory of the installed ragwire package — not with a
    substring, which misfires when ragwire is installed under a path containing ``/ragwire/``.

    Args:
        exc: A caught exception.

    Returns:
        True when the raising code lies outside ragwire's package directory (or nothing
        but standard-library frames are left to tell).
    """
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for filename in reversed(frames):
        real = os.path.realpath(filename)
        if _is_stdlib(filename, real):
            continue
        return not _inside(real, _PACKAGE_DIR)
    return True


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _is_stdlib(filename: str, real: str) -> bool:
    if filename.startswith("<frozen "):
        return True
    for folder in _STDLIB_DIRS:
        if _inside(real, folder):
            # A non-venv install keeps site-packages inside the standard library's folder.
            return os.path.relpath(real, folder).split(os.sep, 1)[0] not in _SITE_DIRS
    return False


def converter_failure(exc: BaseException, name: str) -> LoaderError:
    """The one-line failure of a file whose converter raised ``exc``."""
    text = " ".join(str(exc).split())
    detail = f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__
    return LoaderError(
        f"{name}: the converter failed ({detail}) — check that the file opens in its application and re-save it"
    )


def run_converter(function: Callable[..., T], *args: object, name: str, timeout_s: float) -> T:
    """Call ``function(*args)`` in a child process and return what it returns.

    Args:
        function: The conversion; on POSIX the child is forked, so it may be any callable
            (a monkeypatched method included); elsewhere it must be picklable.
        *args: Its arguments.
        name: The file's name, for messages.
        timeout_s: Seconds the child may take before it is killed.

    Raises:
        LoaderError: the conversion failed (a converter's exception included), took longer
            than ``timeout_s``, or its process died.
        Exception: a bug in ragwire's own code, re-raised here with the child's traceback
            as its ``__cause__``.
    """
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(sender, function, args, name), daemon=True)
    try:
        with _FORK_LOCK:
            # Everything alive at the fork is frozen out of the child's garbage collector: a
            # dead object of the parent (an onnxruntime session, a store handle) finalized in
            # the child would join threads that do not exist there, or write to the parent's files.
            frozen_by_caller = gc.get_freeze_count() > 0  # then leave their freeze in place
            gc.freeze()
            try:
                child.start()
            finally:
                if not frozen_by_caller:
                    gc.unfreeze()
    except OSError as exc:  # fork() fails with ENOMEM / EAGAIN when the machine is out of memory or processes
        receiver.close()
        sender.close()
        raise LoaderError(
            f"{name}: could not start the conversion process ({exc.strerror or exc}) — free memory or run fewer workers",
            retryable=True,
        ) from exc
    sender.close()  # the child holds the only write end: its death closes the pipe
    try:
        message = _wait_for(child, receiver, name, timeout_s)
    except BaseException:  # timed out, died, or this thread was interrupted: no child outlives its call
        child.kill()
        child.join()
        raise
    finally:
        receiver.close()
    # A child that sent its result is already exiting; waiting for that would add the time the
    # kernel takes to tear down a copy of a large process (~50 ms at 1.5 GiB).  multiprocessing
    # reaps it when the next child starts.
    outcome, records = message
    for record in records:
        logging.getLogger(record.name).handle(record)
    if outcome[0] == "ok":
        return outcome[1]
    if outcome[0] == "failed":
        raise LoaderError(outcome[1])
    _, error, child_traceback = outcome
    raise error from _ChildTraceback(child_traceback)


class _ChildTraceback(Exception):
    """The traceback text of a ragwire bug in the conversion process.

    Never raised: attached as ``__cause__`` so the child's frames show under the re-raised bug.
    """

    def __str__(self) -> str:
        return "\n" + self.args[0]


def _context() -> Any:
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def extend_deadline(seconds: float) -> None:
    """In a conversion child: give this conversion ``seconds`` more (OCR asks for its pages' share)."""
    if _CHILD_PIPE is not None and seconds > 0:
        _CHILD_PIPE.send((_NOTE, seconds, ""))


def set_progress_listener(listener: Callable[[str], None] | None) -> None:
    """Send conversion progress ("scan.pdf: OCR page 11 of 300") to ``listener``; ``None``: to the log."""
    global _progress_listener
    _progress_listener = listener


def _show_progress(text: str) -> None:
    listener = _progress_listener
    if listener is not None:
        listener(text)
    else:
        logging.getLogger(__name__).info("%s", text)


def report_progress(text: str) -> None:
    """In a conversion child: log ``text`` in the parent now, not when the file is done."""
    if _CHILD_PIPE is not None:
        _CHILD_PIPE.send((_NOTE, 0.0, text))
    else:
        _show_progress(text)


def _wait_for(child: BaseProcess, receiver: Connection, name: str, timeout_s: float) -> Any:
    deadline = time.monotonic() + timeout_s
    limit = "loader.timeout_s"
    while True:
        remaining = deadline - time.monotonic()
        # A result (or the pipe closing) wakes poll() at once; the tick also catches a child
        # that died while another process happened to hold its pipe open.
        if receiver.poll(max(0.0, min(remaining, _TICK_S))):
            try:
                message = receiver.recv()
            except EOFError:
                break
            if isinstance(message, tuple) and len(message) == 3 and message[0] == _NOTE:
                if message[1] > 0:
                    deadline += message[1]
                    timeout_s += message[1]
                    limit = "loader.timeout_s plus loader.ocr_page_timeout_s per OCR'd page, up to loader.ocr_timeout_s"
                if message[2]:
                    _show_progress(message[2])
                continue
            return message
        if child.exitcode is not None and not receiver.poll(0):
            break
        if remaining <= 0:
            raise LoaderError(
                f"{name}: conversion took longer than {timeout_s:g} s ({limit}) — the file may be"
                " malformed or very large; raise loader.timeout_s or split the file"
            )
    child.join(_EXIT_GRACE_S)
    raise LoaderError(f"{name}: {_death(child.exitcode)}")


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            signame = signal.Signals(-exitcode).name
        except ValueError:
            signame = f"signal {-exitcode}"
        if -exitcode == getattr(signal, "SIGKILL", None):
            return (
                f"the conversion process was killed ({signame}, usually the out-of-memory killer)"
                " — the file needs more memory than is free; check it or free memory"
            )
        return f"the conversion process crashed ({signame}) — a converter bug; check the file or re-save it"
    return f"the conversion process exited (code {exitcode}) without a result — check the file or re-save it"


# -- in the child ------------------------------------------------------------------------------


def _child_main(sender: Connection, function: Callable[..., Any], args: tuple[Any, ...], name: str) -> None:
    # Ctrl-C reaches the whole process group: the parent kills this child, which need not
    # print a KeyboardInterrupt traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _CHILD_PIPE
    _CHILD_PIPE = sender
    records = _keep_log_records()
    try:
        outcome: tuple[Any, ...] = ("ok", function(*args))
    except LoaderError as exc:
        outcome = ("failed", str(exc))
    except Exception as exc:  # noqa: BLE001 — every converter exception fails this file; ours are re-raised
        if raised_outside_ragwire(exc):
            outcome = ("failed", str(converter_failure(exc, name)))
        else:
            outcome = ("bug", _portable(exc), traceback.format_exc())
    try:
        sender.send((outcome, [_portable_record(record) for record in records]))
    except Exception:  # noqa: BLE001 — a log record with an unpicklable `extra`: the result matters more
        try:
            sender.send((outcome, []))
        except Exception as exc:  # noqa: BLE001 — a result that cannot be pickled is a ragwire bug
            sender.send((("bug", RuntimeError(f"{name}: could not send the result back ({exc!r})"), ""), []))
    sender.close()
    # Skip interpreter shutdown: nothing of the child is needed any more, and a converter's
    # leftover non-daemon thread must not keep it alive.
    os._exit(0)


def _keep_log_records() -> list[logging.LogRecord]:
    """Route every log record of this (child) process to a list, to be logged by the parent.

    The parent's handlers then see them once (caplog too), not interleaved on a shared stderr.
    """
    records: list[logging.LogRecord] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    for item in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if isinstance(item, logging.Logger):
            item.handlers = []
    logging.getLogger().addHandler(_Keep())
    return records


def _portable_record(record: logging.LogRecord) -> logging.LogRecord:
    record.msg = record.getMessage()
    if record.exc_info:
        record.msg += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
    record.args = None
    record.exc_info = None
    record.exc_text = None
    return record


def _portable(exc: BaseException) -> BaseException:
    """``exc`` itself when it survives pickling, else a RuntimeError saying what it was."""
    try:
        copy = pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 — exceptions with custom constructors often fail to unpickle
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return copy if isinstance(copy, BaseException) else RuntimeError(f"{type(exc).__name__}: {exc}")
