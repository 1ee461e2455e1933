"""The replies refinement asks the model for (classification and plan, judgement), as pydantic models.

A model's reply is data to validate, never a trusted shape: ``"queries": "What does
E-17 mean?"`` must not become 20 one-letter searches, nor ``[null, 3]`` searches
for "None" and "3".  :func:`read` takes the first ``{…}`` of a reply and checks it
against a model; what does not validate comes back as a one-line problem, which
the loop records as a warning before it falls back (see :mod:`.refine_llm`).
"""

from __future__ import annotations

import json
import re
from typing import Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

KINDS = ("factual", "multi-part", "comparison", "summary", "out-of-scope")
Kind = Literal["factual", "multi-part", "comparison", "summary", "out-of-scope"]

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


class _Reply(BaseModel):
    # Keys the model adds ("reasoning", "confidence") are ignored: they change nothing we do.
    model_config = ConfigDict(extra="ignore")


class Classification(_Reply):
    """What kind of question it is; ``out-of-scope`` is refused before any search."""

    kind: Kind

    @field_validator("kind", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        # "Multi-Part" and "multi_part" name the same kind; anything else still fails the Literal
        return value.strip().lower().replace("_", "-") if isinstance(value, str) else value


class Plan(Classification):
    """The classify call's reply: the kind, and one search query per part of the question."""

    queries: list[StrictStr] = Field(default_factory=list)

    @field_validator("queries")
    @classmethod
    def _no_blank(cls, queries: list[str]) -> list[str]:
        if any(not q.strip() for q in queries):
            raise ValueError("a query is blank")
        return [q.strip() for q in queries]

    @model_validator(mode="after")
    def _searched_kinds_have_queries(self) -> Plan:
        if self.kind != "out-of-scope" and not self.queries:
            raise ValueError("no query for a question that must be searched")
        return self


class PartVerdict(_Reply):
    """The judge's word on one part: is it answered by the sources, and if not, what to search."""

    part: StrictStr
    sufficient: StrictBool
    missing: StrictStr | None = None
    query: StrictStr | None = None


class Judgement(_Reply):
    """The judge call's reply: a verdict per part."""

    parts: list[PartVerdict] = Field(min_length=1)


Model = TypeVar("Model", bound=_Reply)


def read(text: str, model: type[Model]) -> tuple[Model | None, str]:
    """``(reply, "")`` when ``text`` holds a JSON object that validates as ``model``, else ``(None, problem)``.

    The problem is one line: ``not JSON``, ``no JSON object`` or the first failed
    field with pydantic's reason (``queries: Input should be a valid list``).
    """
    found = _OBJECT.search(text)
    if found is None:
        return None, "no JSON object in the reply"
    try:
        data = json.loads(found.group(0))
    except ValueError:
        return None, "the reply is not valid JSON"
    try:
        return model.model_validate(data), ""
    except ValidationError as exc:
        return None, _first_problem(exc)


def _first_problem(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "reply"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"
