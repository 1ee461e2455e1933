"""The store's timings, typed and passed in: each default is the ``vectorstore:`` key's
(:class:`ragwire.config.VectorstoreConfig`), its one home."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..config.store import VectorstoreConfig


def _default(key: str) -> float:
    return float(VectorstoreConfig.model_fields[key].default)


@dataclass(frozen=True)
class StoreOptions:
    """How long the store stays open, and how long its callers wait for others.

    ``hold_open_s``: seconds the engine stays open after a call; ``lock_wait_s``: seconds an
    open waits for another process to let go of an embedded store's folder; ``write_wait_s``:
    seconds a write run waits for another one; ``lease_ttl_s``: seconds a writer lease
    outlives its holder's last write (server engines).
    """

    hold_open_s: float = _default("hold_open_s")
    lock_wait_s: float = _default("lock_wait_s")
    write_wait_s: float = _default("write_wait_s")
    lease_ttl_s: float = _default("lease_ttl_s")

    @classmethod
    def of(cls, vectorstore: VectorstoreConfig) -> StoreOptions:
        """The timings a ``vectorstore`` section sets (a key it lacks keeps its default)."""
        defaults = cls()
        return cls(**{f.name: float(getattr(vectorstore, f.name, getattr(defaults, f.name))) for f in fields(cls)})
