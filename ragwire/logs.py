"""Logging helpers.  The library itself adds no handlers; the CLI and these functions do."""

from __future__ import annotations

import logging
import sys

_ROOT = "ragwire"
_DEFAULT_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
_COLORS = {
    logging.DEBUG: "\033[36m",
    logging.INFO: "\033[32m",
    logging.WARNING: "\033[33m",
    logging.ERROR: "\033[31m",
    logging.CRITICAL: "\033[1;31m",
}
_RESET = "\033[0m"


def get_logger(name: str = _ROOT) -> logging.Logger:
    """Return a logger under the ``ragwire`` namespace."""
    if name != _ROOT and not name.startswith(_ROOT + "."):
        name = f"{_ROOT}.{name}"
    return logging.getLogger(name)


class _ColorFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        color = _COLORS.get(record.levelno)
        return f"{color}{text}{_RESET}" if color else text


def _configure(
    log_level: str,
    log_file: str | None,
    console_output: bool,
    formatter: logging.Formatter,
    file_formatter: logging.Formatter,
) -> logging.Logger:
    logger = logging.getLogger(_ROOT)
    level = logging.getLevelName(str(log_level).upper())
    if not isinstance(level, int):
        raise ValueError(
            f"log_level {log_level!r} is not a level; use DEBUG, INFO, WARNING, ERROR or CRITICAL"
        )
    logger.setLevel(level)
    # Calling setup twice must not double every line.
    for handler in list(logger.handlers):
        if getattr(handler, "_ragwire", False):
            logger.removeHandler(handler)
            handler.close()
    if console_output:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(formatter)
        console._ragwire = True  # type: ignore[attr-defined]
        logger.addHandler(console)
    if log_file:
        from pathlib import Path

        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_file, encoding="utf-8")
        handler.setFormatter(file_formatter)
        handler._ragwire = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    return logger


def setup_logging(
    log_level: str = "INFO",
    log_file: str | None = None,
    console_output: bool = True,
    format_string: str | None = None,
) -> logging.Logger:
    """Send ragwire's logs to stderr and/or a file.

    Args:
        log_level: DEBUG, INFO, WARNING, ERROR or CRITICAL.
        log_file: Optional path of a log file (its folder is created).
        console_output: Also write to stderr.
        format_string: A ``logging`` format string.

    Returns:
        The ``ragwire`` logger.
    """
    fmt = logging.Formatter(format_string or _DEFAULT_FORMAT)
    return _configure(log_level, log_file, console_output, fmt, fmt)


def setup_colored_logging(log_level: str = "INFO", log_file: str | None = None) -> logging.Logger:
    """Like :func:`setup_logging`, with levels colour-coded on the console."""
    return _configure(
        log_level,
        log_file,
        True,
        _ColorFormatter(_DEFAULT_FORMAT),
        logging.Formatter(_DEFAULT_FORMAT),
    )


# ``extra=`` of a record whose line the caller also gets back in a result (a sync's
# warnings and summary are in its SyncStats): the CLI prints those itself, once.
REPORTED = {"ragwire_reported": True}


class _DropReported(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "ragwire_reported", False)


def quiet_reported_lines() -> None:
    """Drop :data:`REPORTED` records from ragwire's console handler (log files keep them)."""
    for handler in logging.getLogger(_ROOT).handlers:
        if getattr(handler, "_ragwire", False) and isinstance(handler, logging.StreamHandler) \
                and not isinstance(handler, logging.FileHandler):
            if not any(isinstance(f, _DropReported) for f in handler.filters):
                handler.addFilter(_DropReported())
