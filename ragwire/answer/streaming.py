"""What a stream may show while it is still arriving: no sentinel, no invented citation numbers.

Text is released as soon as it cannot turn into either.  Three things are
held back: an open ``[`` until its marker closes (so ``[9]`` with five sources
never appears), a tail that could still grow into the sentinel (so a refusal
never flashes ``NO_ANSWER_IN_SOURCES`` on screen), and trailing spaces (so the
space before a dropped marker goes with it).  All are short, so the delay is a
few characters, never a sentence.
"""

from __future__ import annotations

import re

from .citations import filter_markers
from .prompt import SENTINEL, sentinel_span

# Longer than any real marker ("[12, 13-15]"); an open bracket held past this is prose.
_MAX_MARKER_CHARS = 24
_MARKER_BODY = re.compile(r"[\d\s,\-–]*")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"[ \t]+([.,;:!?])")


class StreamFilter:
    """Feed model text piece by piece; get back what is safe to show.

    Args:
        valid: The source numbers that exist (1..n).
    """

    def __init__(self, valid: set[int]) -> None:
        self.valid = valid
        self._pending = ""
        self.shown = ""  # everything released so far

    def feed(self, piece: str) -> str:
        """Add ``piece``; return the text that can be shown now (may be empty)."""
        self._pending += piece
        hold = min(self._marker_hold(), self._sentinel_hold())
        return self._release(hold, final=False)

    def finish(self) -> str:
        """Everything still held, cleaned, at the end of the stream."""
        return self._release(len(self._pending), final=True).rstrip()

    def _release(self, upto: int, final: bool) -> str:
        ready, self._pending = self._pending[:upto], self._pending[upto:]
        ready = filter_markers(_without_sentinels(ready), self.valid)
        # as clean_markers does for the whole text: "claim [9]." reads "claim."
        ready = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", ready)
        if not final:
            # Trailing spaces wait for what follows: if that is a dropped marker and a
            # full stop, the space must go too.
            kept = ready.rstrip(" \t")
            ready, self._pending = kept, ready[len(kept) :] + self._pending
        if not self.shown:
            # the whitespace a removed sentinel leaves at the start is not worth a piece
            ready = ready.lstrip()
        self.shown += ready
        return ready

    def _marker_hold(self) -> int:
        """Index of an open ``[`` that may still become a marker, else the end of the text."""
        start = self._pending.rfind("[")
        if start < 0 or "]" in self._pending[start:]:
            return len(self._pending)
        body = self._pending[start + 1 :]
        if len(body) < _MAX_MARKER_CHARS and _MARKER_BODY.fullmatch(body):
            return start
        return len(self._pending)

    def _sentinel_hold(self) -> int:
        """Index of the longest tail that could still become the sentinel, else the end."""
        text = self._pending
        target = SENTINEL.lower()
        for start in range(max(0, len(text) - len(target)), len(text)):
            if start > 0 and text[start - 1].isalnum():
                continue  # the sentinel starts a word
            tail = re.sub(r"[\s-]", "_", text[start:].lower())
            if target.startswith(tail):
                return start
        return len(text)


def _without_sentinels(text: str) -> str:
    while (span := sentinel_span(text)) is not None:
        text = text[: span[0]] + text[span[1] :]
    return text
