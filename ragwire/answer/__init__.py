"""Answers that cite their sources or refuse: context budget, grounded prompt, citations, extractive mode."""

from .citations import resolve
from .context import MIN_SOURCE_CHARS, NumberedSource, build_context, source_label
from .types import Answer, Citation, Usage

__all__ = [
    "MIN_SOURCE_CHARS",
    "Answer",
    "Citation",
    "NumberedSource",
    "Usage",
    "build_context",
    "resolve",
    "source_label",
]
