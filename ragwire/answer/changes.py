"""A change of price stated without its name: a discount as "10 % off", a surcharge as "+2 %".

Documents write a change of price as the change itself and seldom name it: "groups get 10 % off",
"card payments +2 %", "students pay €5 less".  A question naming it ("do groups get a discount?",
"what surcharge applies?") is grounded by a passage that states a change that way, though no chunk
of the collection holds the question's word.
"""

from __future__ import annotations

import re

from .text import stem

# A price lowered: an amount or share followed by "off" or "less", or a lowered price named ("reduced", "half price").
_LOWERED = re.compile(r"\d\s?(?:%|per\s?cent|[^\W\d_]{1,3}\.?)?\s(?:off|less)\b|\b(?:reduced|cheaper|half[- ]price)\b",
                      re.IGNORECASE)
# A price raised: a share or amount with a plus sign, or "extra", "more", "on top", "added" beside a share.
_RAISED = re.compile(r"(?<![\w+])\+\s?[^\W\d_]{0,3}\s?\d|\d\s?(?:%|per\s?cent)\s(?:extra|more|on\s+top|is\s+added)\b|"
                     r"\b(?:plus|add(?:s|ed)?|extra|additional)\s\d[\d.,]*\s?(?:%|per\s?cent)", re.IGNORECASE)
# The words naming a change of price, each with how a passage states that change.
CHANGES = {stem(word): _LOWERED for word in "discount reduction rebate concession".split()} | {
    stem(word): _RAISED for word in "surcharge supplement markup".split()}


def states_change(term: str, text: str) -> bool:
    """Whether ``text`` states the change of price ``term`` names ("discount", "surcharges"), in the way documents write
    it; False for a word that names no change of price."""
    pattern = CHANGES.get(stem(term))
    return pattern is not None and bool(pattern.search(text))
