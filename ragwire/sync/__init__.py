"""Sync: reconcile the collection with its configured sources (local folders, S3 buckets)."""

from .base import Listing, Refused, Source, SourceEntry
from .reconcile import SYNC_SOURCE_FIELD, reconcile
from .registry import make_source, make_sources
from .stats import SourceStats, SyncStats

__all__ = [
    "Listing",
    "Refused",
    "SYNC_SOURCE_FIELD",
    "Source",
    "SourceEntry",
    "SourceStats",
    "SyncStats",
    "make_source",
    "make_sources",
    "reconcile",
]
