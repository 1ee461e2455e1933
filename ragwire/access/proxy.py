"""Identity set by a reverse proxy (oauth2-proxy's X-Forwarded-User / X-Forwarded-Groups), trusted
only from the addresses ``access.trusted_proxies`` names."""

from __future__ import annotations

import ipaddress
from typing import Iterable, Mapping

from .principal import Principal


class ProxyRefused(Exception):
    """The request names a user in proxy headers but does not come from a trusted proxy."""


def _from_trusted(client: str | None, networks: Iterable[str]) -> bool:
    if not client:
        return False
    try:
        address = ipaddress.ip_address(client.split("%")[0])
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(n, strict=False) for n in networks)


def proxy_principal(headers: Mapping[str, str], client: str | None, trusted: list[str], *,
                    user_header: str = "X-Forwarded-User",
                    groups_header: str = "X-Forwarded-Groups") -> Principal | None:
    """The principal a trusted proxy names; None when the request carries no user header.

    Groups come comma-separated (oauth2-proxy's form); a group that is not a valid label
    is dropped rather than refusing the user: it can only be one no document carries.

    Raises:
        ProxyRefused: a user header from an address not in ``trusted`` (or none is trusted).
    """
    lower = {k.lower(): v for k, v in headers.items()}
    user = lower.get(user_header.lower())
    if user is None:
        return None
    if not _from_trusted(client, trusted):
        raise ProxyRefused(f"{user_header} from {client or 'an unknown address'}, which access.trusted_proxies "
                           "does not list")
    groups: list[str] = []
    for raw in (lower.get(groups_header.lower()) or "").split(","):
        try:
            groups += Principal.of("g", [raw]).groups if raw.strip() else []
        except ValueError:
            continue
    return Principal.of(user.strip() or "unknown", groups)
