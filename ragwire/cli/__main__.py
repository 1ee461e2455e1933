"""``python -m ragwire.cli``: the same command as ``ragwire``."""

from ragwire.cli.entry import run

run()
