"""The labels a document is stored with: from its source, the sub-folder or prefix it lies in, its object tags.

The most specific statement wins: an S3 object's tag over a sub-folder (longest prefix
first) over the source's ``access``; none of them: ``access.default``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ..config.access import AccessConfig, normalise_labels

# The metadata field every chunk carries its labels in (keyword-indexed, a list of labels).
ACCESS_FIELD = "access"
# S3 tag values may not hold commas.
_TAG_SEPARATORS = re.compile(r"[\s+:,/]+")


def tag_labels(tags: Mapping[str, str] | None, tag_key: str | None) -> list[str] | None:
    """The labels an object's tag ``tag_key`` names (``"hr finance"``, ``"hr+finance"``); None without the tag."""
    if not tag_key or not tags or tag_key not in tags:
        return None
    parts = [p for p in _TAG_SEPARATORS.split(tags[tag_key]) if p]
    return normalise_labels(parts, f"tag {tag_key}")


def path_labels(relative: str, access_paths: Mapping[str, list[str]]) -> list[str] | None:
    """The labels of the longest ``access_paths`` prefix (``"hr/"``) ``relative`` lies under; None if none."""
    rel = relative.replace("\\", "/").lstrip("/")
    best: str | None = None
    for prefix in access_paths:
        if rel.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return None if best is None else list(access_paths[best])


def document_labels(source: object | None, relative: str = "", *, default: list[str],
                    tags: Mapping[str, str] | None = None, tag_key: str | None = None,
                    given: list[str] | None = None) -> list[str]:
    """The labels one document is stored with.

    Args:
        source: Its ``sources:`` entry (``access``, ``access_paths``), or None for a hand ingest.
        relative: Its path within the source (an S3 key below the prefix).
        default: What an unlabelled document gets (``AccessConfig.default_labels()``).
        tags: Its S3 object tags, when read.
        tag_key: The tag that carries labels (``access.s3_tag_key``).
        given: Labels named on the command line (``ingest --access``): they win over all.
    """
    if given is not None:
        return normalise_labels(given)
    from_tag = tag_labels(tags, tag_key)
    if from_tag is not None:
        return from_tag
    if source is not None:
        from_path = path_labels(relative, getattr(source, "access_paths", None) or {})
        if from_path is not None:
            return from_path
        labels = getattr(source, "access", None)
        if labels is not None:
            return list(labels)
    return list(default)


def source_labeller(access: AccessConfig) -> Callable[[Any, Any], list[str]]:
    """What sync labels an entry of a source with, under an ``access:`` section.

    With ``access.s3_tag_key`` set, an S3 entry's tags are read on every sync (one request
    per object), so a changed tag relabels the object like a changed ``access:`` does.
    """
    default, tag_key = access.default_labels(), access.s3_tag_key

    def labels(source: Any, entry: Any) -> list[str]:
        tags = source.tags(entry) if tag_key else None
        return document_labels(getattr(source, "config", None), source.relative(entry), default=default,
                               tags=tags, tag_key=tag_key)

    return labels

