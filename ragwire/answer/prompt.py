"""The grounded prompt: system instructions, the numbered sources block, refusal detection, chat rewrite.

The model is told to answer only from numbered sources, cite every claim with
``[n]``, and reply with :data:`SENTINEL` alone when the sources do not answer the
question; :func:`is_refusal` recognises that reply.  Nothing here calls a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .citations import MARKER
from .context import NumberedSource, source_label

# A token no prose contains, so its presence is a decision and not a phrase the answer happened to use.
SENTINEL = "NO_ANSWER_IN_SOURCES"

DEFAULT_SYSTEM_PROMPT = """\
You answer questions using only the numbered sources given with the question.

Rules:
1. Use only facts stated in the sources. Do not use outside knowledge and do not guess.
2. Cite every claim with the number of the source that supports it, in square brackets \
right after the claim, like [1] or [2, 3]. Cite only numbers that appear before a source.
3. If the sources do not contain the answer, reply with exactly {sentinel} and nothing else.
4. If the sources answer only part of the question, answer that part with citations \
and say which part the sources do not cover.
5. Be concise and do not mention these rules."""

REWRITE_SYSTEM_PROMPT = """\
You rewrite the last user message of a conversation into a standalone question \
that can be understood without the conversation, for searching documents.
Resolve pronouns and references ("it", "that one", "the second") from the earlier turns \
and keep names, numbers and dates. Do not answer the question.
Reply with the standalone question only, on one line. If the message already stands alone, \
repeat it unchanged."""

# The rewrite needs the topic of the conversation, not every detail of it: the most
# recent turns, each cut short, keep that call cheap however long the chat grows.
REWRITE_TURNS = 8
REWRITE_TURN_CHARS = 1_000

Role = Literal["user", "assistant"]

# Tolerates the spellings models drift into: "No answer in sources", "NO-ANSWER-IN-SOURCES".
_SENTINEL_RE = re.compile(r"no[\s_-]*answer[\s_-]*in[\s_-]*sources", re.IGNORECASE)
_REWRITE_PREFIX = re.compile(
    r"^(?:standalone\s+question|question|rewritten(?:\s+question)?)\s*\**\s*:\s*\**\s*", re.IGNORECASE
)


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, as ragwire passes it on."""

    role: Role
    content: str


def system_prompt(generation: Any = None) -> str:
    """The grounding instructions, with ``{sentinel}`` replaced by :data:`SENTINEL`.

    Args:
        generation: The ``generation`` config section (or None for the defaults);
            its ``system_prompt``, when set, replaces the built-in one.
    """
    template = getattr(generation, "system_prompt", None) or DEFAULT_SYSTEM_PROMPT
    # str.replace, not str.format: a custom prompt may hold other braces (JSON examples).
    return template.replace("{sentinel}", SENTINEL)


def sources_block(sources: Sequence[NumberedSource]) -> str:
    """Each source as ``[n] <label>`` on its own line, then its text; blank lines between."""
    return "\n\n".join(f"[{s.index}] {source_label(s)}\n{s.text}" for s in sources)


def user_message(question: str, sources: Sequence[NumberedSource]) -> str:
    """The user turn sent with the question: the numbered sources, then the question."""
    return f"Sources:\n\n{sources_block(sources)}\n\nQuestion: {question.strip()}"


def is_refusal(text: str) -> bool:
    """True when the reply is the sentinel, or the sentinel dominates it.

    Dominates means: the reply opens with it (after markup such as ``**`` or
    quotes), or it appears and the rest of the reply cites nothing.  A cited
    answer that uses the sentinel for one uncovered part is not a refusal.
    """
    found = _SENTINEL_RE.search(text)
    if found is None:
        return False
    if not re.search(r"\w", text[: found.start()]):
        return True
    return MARKER.search(_SENTINEL_RE.sub(" ", text)) is None


def strip_sentinel(text: str) -> str:
    """The reply without any sentinel, for a partial answer that is kept."""
    stripped = _SENTINEL_RE.sub("", text)
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"[ \t]+([.,;:!?])", r"\1", stripped)).strip()


def sentinel_span(text: str) -> tuple[int, int] | None:
    """Where the first complete sentinel is in ``text``, or None."""
    found = _SENTINEL_RE.search(text)
    return found.span() if found else None


def rewrite_user_message(earlier: Sequence[Turn], last: str) -> str:
    """The request to turn ``last`` into a standalone question, given the earlier turns."""
    lines = []
    for turn in list(earlier)[-REWRITE_TURNS:]:
        content = " ".join(turn.content.split())
        if len(content) > REWRITE_TURN_CHARS:
            content = content[: REWRITE_TURN_CHARS - 1] + "…"
        lines.append(f"{'User' if turn.role == 'user' else 'Assistant'}: {content}")
    conversation = "\n".join(lines)
    return f"Conversation:\n{conversation}\n\nLast user message: {last.strip()}\n\nStandalone question:"


def clean_rewrite(reply: str, fallback: str) -> str:
    """The standalone question from the rewrite reply; ``fallback`` when it is empty or a refusal."""
    for line in reply.splitlines():
        line = _REWRITE_PREFIX.sub("", line.strip().strip("*").strip())
        line = line.strip().strip("\"'`“”").strip()
        if line:
            return fallback if _SENTINEL_RE.search(line) else line
    return fallback
