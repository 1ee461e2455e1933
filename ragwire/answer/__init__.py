"""Answers that cite their sources or refuse: context budget, grounded prompt, citations, extractive mode."""

from .answerer import Answerer
from .citations import resolve
from .context import MIN_SOURCE_CHARS, NumberedSource, build_context, source_label
from .prompt import SENTINEL, is_refusal, system_prompt
from .results import Answer, Citation, TraceStep, Usage

__all__ = [
    "MIN_SOURCE_CHARS",
    "Answer",
    "Answerer",
    "Citation",
    "NumberedSource",
    "SENTINEL",
    "TraceStep",
    "Usage",
    "build_context",
    "is_refusal",
    "resolve",
    "source_label",
    "system_prompt",
]
