"""The ``ragwire`` executable: run the command, then leave without tearing the interpreter down.

When a command has finished, its output is printed and the exit handlers close its
stores (releasing the embedded engine's lock).  What a normal exit adds after that is the
interpreter's teardown: freeing the ONNX session, the engine and every module, about
0.15 s of a one-second ``ragwire query``.  So the executable flushes, runs the exit
handlers itself and ends the process.  It exits normally instead when another
non-daemon thread is still running (its work must finish) or when the command raised a
bug (its traceback must show).  ``main`` itself, as tests and applications call it,
is unchanged.

The executable also runs numpy's BLAS on one thread (unless ``OPENBLAS_NUM_THREADS``
says otherwise): see :func:`_one_blas_thread`.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from .app import main


def run(argv: list[str] | None = None) -> NoReturn:
    """Run ``ragwire`` with ``argv`` (default: the process's arguments) and exit with its code."""
    _one_blas_thread()
    try:
        main(args=argv, prog_name="ragwire")
    except SystemExit as exc:
        _leave(exc.code)
    _leave(0)


def _one_blas_thread() -> None:
    """Before numpy is imported: its OpenBLAS starts a thread per core that spins for about
    0.1 s waiting for work, beside the ONNX session being created (0.04 s of a cold
    ``ragwire query`` on 2 cores).  ragwire's numpy work is small vector products, and the
    embedding runtimes keep their own thread pools, so nothing needs BLAS threads."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _leave(code: object) -> NoReturn:
    if isinstance(code, str):  # sys.exit("message"): printed, status 1, as Python does
        print(code, file=sys.stderr)
        status = 1
    else:
        status = code if isinstance(code, int) else 0 if code is None else 1
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others:
        sys.exit(status)
    atexit._run_exitfuncs()  # stores close, logging and tracing flush, as at a normal exit
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`ragwire retrieve … | head -1`): nothing to add
            status = status or 1
    os._exit(status)
