"""Install packages into this virtual environment with uv when it installs, with pip otherwise.

    .venv/bin/python tools/install.py torch==2.13.0
    .venv/bin/python tools/install.py -e ".[local,dev]"

uv resolves and installs the same packages as pip several times faster: on the 2-core
build machine, with empty caches, torch's CPU wheel took 11 s against pip's 55 s and
``ragwire[local,dev]`` 11 s against 1 min 42 s. uv reads no ``pip.conf``, so the
machine's pip settings (find-links, package indexes, constraints: where the local
wheels and the torch cap come from) are passed on as uv flags; pip, and anything uv
cannot do, stays the fallback, so an install never depends on uv.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent

# pip's setting -> uv's flag (pip joins several values of one setting with spaces or newlines).
_FLAGS = {
    "find-links": "--find-links",
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "constraint": "--constraint",
}


def pip_settings() -> list[str]:
    """uv flags for what ``pip config list`` sets on this machine (files and PIP_* variables)."""
    listed = subprocess.run([str(BIN / "pip"), "config", "list"], capture_output=True, text=True, check=False)
    flags: list[str] = []
    for line in listed.stdout.splitlines():
        key, _, value = line.partition("=")
        flag = _FLAGS.get(key.rsplit(".", 1)[-1])
        if flag is None:
            continue
        for item in value.strip().strip("'\"").split():
            if flag in ("--index-url", "--constraint") and flag in flags:
                continue  # one of each: pip's own precedence put the first one listed in charge
            if item not in flags:  # a setting both pip.conf and a PIP_* variable give
                flags += [flag, item]
    return flags


def main(args: list[str]) -> int:
    pip = [str(BIN / "pip"), "install", "-q", *args]
    if subprocess.run([str(BIN / "pip"), "install", "-q", "uv"], capture_output=True, check=False).returncode == 0:
        # unsafe-best-match: pip's rule, the best version across every index and find-links
        # (uv's default takes the first index that has the name, which would hide the local wheels).
        # --compile-bytecode: as pip does. Where PYTHONDONTWRITEBYTECODE is set (this machine,
        # CI) nothing else ever writes a .pyc, and every process compiled what it imported:
        # the suite took 100 s more CPU without it.
        uv = [str(BIN / "uv"), "pip", "install", "-q", "--compile-bytecode", "--python", sys.executable,
              "--index-strategy", "unsafe-best-match", *pip_settings(), *args]
        if subprocess.run(uv, check=False).returncode == 0:
            return 0
        print("tools/install.py: uv could not install this; trying pip", file=sys.stderr)
    return subprocess.run(pip, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
