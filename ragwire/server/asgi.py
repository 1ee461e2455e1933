"""The shapes of the ASGI spec the servers' wrappers pass along (standard library only, like starlette.types)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, MutableMapping

Scope = dict[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
