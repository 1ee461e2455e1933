"""Conversations for ``chat()``: accept role dicts or LangChain messages, find the question to search for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .prompt import Turn

# LangChain message ``type`` values and the roles they stand for.
_MESSAGE_TYPES = {"human": "user", "ai": "assistant"}


def to_turns(messages: Sequence[Any]) -> list[Turn]:
    """Check and convert a conversation; the last turn must be the user's.

    Args:
        messages: ``{"role": "user" | "assistant", "content": str}`` dicts or
            LangChain ``HumanMessage`` / ``AIMessage`` objects, oldest first.

    Raises:
        ValueError: an empty conversation, an unknown role (system prompts come from
            ``generation.system_prompt``), content that is not text, or a last turn
            that is not the user's.
    """
    if isinstance(messages, (str, bytes)) or not messages:
        raise ValueError("messages: expected a non-empty list of {'role': ..., 'content': ...} turns")
    turns = [_turn(i, m) for i, m in enumerate(messages)]
    if turns[-1].role != "user":
        raise ValueError(
            f"messages[{len(turns) - 1}]: the last turn must be the user's question, got role '{turns[-1].role}'"
        )
    if not turns[-1].content.strip():
        raise ValueError(f"messages[{len(turns) - 1}].content: the question is empty")
    return turns


def offline_query(earlier: Sequence[Turn], last: str) -> str:
    """What to search for when no LLM can rewrite a follow-up: the previous user turn, then this one.

    A follow-up ("and is it waterproof?") names its topic only in the turn
    before it, so searching for both keeps the topic; turns further back are
    left out because they drift from what is being asked now.
    """
    previous = next((t.content.strip() for t in reversed(earlier) if t.role == "user"), "")
    return f"{previous}\n{last.strip()}" if previous else last.strip()


def _turn(i: int, message: Any) -> Turn:
    if isinstance(message, Mapping):
        role, content = message.get("role"), message.get("content")
    elif hasattr(message, "type") and hasattr(message, "content"):
        role = _MESSAGE_TYPES.get(message.type, message.type)
        content = message.content
        if not isinstance(content, str):
            # content blocks (Anthropic-style lists): keep the text parts
            text = getattr(message, "text", None)
            content = text if isinstance(text, str) or text is None else text()
    else:
        raise ValueError(
            f"messages[{i}]: expected a dict with 'role' and 'content' or a LangChain message, "
            f"got {type(message).__name__}"
        )
    if role not in ("user", "assistant"):
        raise ValueError(
            f"messages[{i}].role: must be 'user' or 'assistant', got {role!r} "
            "(the system prompt is set by generation.system_prompt)"
        )
    if not isinstance(content, str):
        raise ValueError(f"messages[{i}].content: must be text, got {type(content).__name__}")
    return Turn(role, content)
