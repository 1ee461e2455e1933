"""What a stream may show while it is still arriving: no sentinel, no invented citation numbers.

Text is released as soon as it cannot turn into either.  Three things are
held back: an open ``[`` until its marker closes (so ``[9]`` with five sources
never appears), a tail that could still grow into any spelling of the sentinel
the refusal detector accepts (so a refusal never flashes ``NO  ANSWER  IN
SOURCES`` on screen), and trailing spaces (so the space before a dropped marker
goes with it).  All are short, so the delay is a few characters, never a sentence.
A reply that opens with the sentinel is a refusal: nothing of it is shown, not
even the full stop after it.
"""

from __future__ import annotations

import re

from .citations import filter_markers
from .prompt import replace_sentinels, sentinel_span

# Longer than any real marker ("[12, 13-15]"); an open bracket held past this is prose.
_MAX_MARKER_CHARS = 24
_MARKER_BODY = re.compile(r"[\d\s,\-–]*")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"[ \t]+([.,;:!?])")
# The sentinel's letters; the detector allows any run of spaces, "_" or "-" between its words.
_SENTINEL_LETTERS = "noanswerinsources"
_SEPARATORS = re.compile(r"[\s_-]+")


class StreamFilter:
    """Feed model text piece by piece; get back what is safe to show.

    Args:
        valid: The source numbers that exist (1..n).
    """

    def __init__(self, valid: set[int]) -> None:
        self.valid = valid
        self._pending = ""
        self.shown = ""  # everything released so far
        self.refused = False  # the reply opened with the sentinel: nothing more is shown

    def feed(self, piece: str) -> str:
        """Add ``piece``; return the text that can be shown now (may be empty)."""
        self._pending += piece
        hold = min(self._marker_hold(), self._sentinel_hold())
        return self._release(hold, final=False)

    def finish(self) -> str:
        """Everything still held, cleaned, once the stream ends."""
        return self._release(len(self._pending), final=True).rstrip()

    def _release(self, upto: int, final: bool) -> str:
        if self.refused:
            self._pending = ""
            return ""
        ready, self._pending = self._pending[:upto], self._pending[upto:]
        span = sentinel_span(ready)
        if span is not None and not re.search(r"[^\W_]", self.shown + ready[: span[0]]):
            # Opening with the sentinel makes the reply a refusal (prompt.is_refusal):
            # whatever follows it, down to a full stop, is not an answer.
            self.refused = True
            self._pending = ""
            return ""
        ready = filter_markers(replace_sentinels(ready, before=self.shown), self.valid)
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
        """Index of the longest tail that could still become a spelling of the sentinel, else the end.

        A complete sentinel at the very end is held too: the next piece decides
        whether its full stop belongs to it.
        """
        text = self._pending
        for start in (m.start() for m in re.finditer(r"(?<![^\W_])n", text, re.IGNORECASE)):
            tail = _SEPARATORS.sub("", text[start:].lower())
            if _SENTINEL_LETTERS.startswith(tail):
                return start
        return len(text)
