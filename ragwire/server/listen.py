"""The listening socket of a ragwire HTTP server, bound before anything slow loads, so a busy port is one clear error."""

from __future__ import annotations

import errno
import socket

from ragwire.errors import ServerError


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (not yet listening), for ``uvicorn.Server.run(sockets=[...])``.

    Binding here rather than in uvicorn turns a taken port into one message instead of
    uvicorn's logged traceback line and exit status 3, and nothing can take the port
    between the check and the start.

    Raises:
        ServerError: the port is in use, the address is not this machine's, or the
            host name does not resolve.
    """
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServerError(f"cannot listen on {host}: the host name does not resolve ({exc.strerror}); "
                          "pass an address of this machine with --host, e.g. 127.0.0.1") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and bare in ("::", ""):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # `::` takes IPv4 too, as 0.0.0.0 would
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServerError(f"port {port} on {host} is already in use (another server, or an earlier "
                              f"one still running): stop it, or pick another port with --port") from exc
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ServerError(f"cannot listen on {host}: it is not an address of this machine; "
                              "pass one of its addresses with --host, e.g. 127.0.0.1") from exc
        if exc.errno == errno.EACCES:
            raise ServerError(f"port {port} on {host} needs special privileges: pick a port above 1023 "
                              "with --port") from exc
        raise ServerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock
