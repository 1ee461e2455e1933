"""Who reads: a principal is a name, a set of groups and a role (reader, or writer for upload and delete)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

from ..config.access import PUBLIC, normalise_labels

Role = Literal["reader", "writer"]
ROLES: tuple[Role, ...] = ("reader", "writer")


@dataclass(frozen=True)
class Principal:
    """A reader of the collection.

    ``groups`` are the labels the principal may read besides ``public``.  An
    ``unrestricted`` principal reads everything, labelled or not: the Python API
    without :meth:`ragwire.RAGWire.as_principal`, and a server's one-token mode.
    """

    name: str
    groups: frozenset[str] = field(default_factory=frozenset)
    role: Role = "reader"
    unrestricted: bool = False

    @classmethod
    def of(cls, name: str, groups: Iterable[str] | str = (), role: Role = "reader") -> Principal:
        """A restricted principal, its groups checked and lower-cased like labels.

        Raises:
            ValueError: a group name is not a label, or the role is not reader or writer.
        """
        if role not in ROLES:
            raise ValueError(f"role: {role!r} is not one of {', '.join(ROLES)}")
        return cls(name=name, groups=frozenset(normalise_labels(groups, "groups")), role=role)

    @property
    def readable(self) -> frozenset[str]:
        """The labels a document needs one of for this principal to read it."""
        return self.groups | {PUBLIC}

    @property
    def can_write(self) -> bool:
        return self.unrestricted or self.role == "writer"

    def can_read(self, labels: Iterable[str] | None) -> bool:
        """Whether a document stored with ``labels`` is readable; the one rule :func:`ragwire.access.gate.compose` filters by."""
        return self.unrestricted or bool(set(labels or ()) & self.readable)

    def describe(self) -> dict[str, object]:
        """JSON-safe: name, groups, role (the audit log's and ``token list``'s view)."""
        return {"name": self.name, "groups": sorted(self.groups), "role": self.role,
                **({"unrestricted": True} if self.unrestricted else {})}


# What every read sees when no principal is named: the library's caller owns the store.
EVERYONE = Principal(name="*", role="writer", unrestricted=True)
