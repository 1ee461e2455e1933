"""Who may read what (issue 39, docs/security.md): labels on documents, principals, the one mandatory
filter every read composes with, tokens for the servers, trusted proxy headers and the audit log."""

from .audit import AuditLog, read_log
from .gate import acting_as, compose, mandatory
from .labels import ACCESS_FIELD, document_labels
from .principal import EVERYONE, Principal
from .proxy import ProxyRefused, proxy_principal
from .tokens import TokenFile

__all__ = [
    "ACCESS_FIELD",
    "EVERYONE",
    "AuditLog",
    "Principal",
    "ProxyRefused",
    "TokenFile",
    "acting_as",
    "compose",
    "document_labels",
    "mandatory",
    "proxy_principal",
    "read_log",
]
