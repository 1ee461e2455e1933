"""Names a package exports but imports on first access (PEP 562), so importing it stays cheap.

One rule for every package that defers its heavy names: the name is looked up in
its home module on first access and then kept in the package, so later lookups
skip the hook.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable


def lazy_names(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name in ``homes`` comes from its module.

    A home that starts with ``.`` is relative to ``package``; any other is a full module name.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
