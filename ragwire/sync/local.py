"""``type: local`` sources: a folder (or one file) walked with the same safety rules as ``ingest_directory``.

Identity: a named source stores ``local://<name>/<path relative to its root>``, so the
folder moved, mounted elsewhere or synced from another machine is the same set of
documents.  An unnamed source stores the file's normalised absolute path, the same
identity ``ragwire ingest`` gives it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..config import LoaderConfig, LocalSource
from ..errors import LoaderError, SourceError
from ..ingest import source_id
from ..loaders import walk_directory
from .base import Listing, Refused, Source, SourceEntry


class LocalFolderSource(Source):
    """Files under ``path`` (recursively if asked), filtered by extension."""

    def __init__(self, config: LocalSource, loader: LoaderConfig) -> None:
        self.config = config
        self.loader = loader
        self.root = Path(source_id(config.path))
        self.name = config.name
        # An unnamed source is keyed by its folder, so a relative and an absolute
        # spelling of one folder are one source.
        self.key = config.name if config.name else str(self.root)
        self.place = str(self.root)

    def identity(self, path: Path) -> str:
        if not self.name:
            return source_id(path)
        relative = path.name if self.root.is_file() else os.path.relpath(source_id(path), self.root)
        return f"local://{self.name}/{Path(relative).as_posix()}"

    def list(self) -> Listing:
        lc = self.loader
        try:
            walk = walk_directory(
                self.root,
                extensions=self.config.extensions or lc.extensions,
                recursive=self.config.recursive,
                include_hidden=lc.include_hidden,
                follow_symlinks=lc.follow_symlinks,
                max_file_bytes=int(lc.max_file_size_mb * 2**20),
                max_files=lc.max_files,
            )
        except (LoaderError, OSError) as exc:
            raise SourceError(f"{self.root}: cannot be listed ({' '.join(str(exc).split())})") from exc
        for folder, reason in walk.unlisted:
            if folder == self.root:  # nothing of the source was seen: a failed listing, not an empty one
                raise SourceError(f"{self.root}: cannot be listed ({reason})")
        unlisted = {folder for folder, _ in walk.unlisted}
        listing = Listing(
            refused=[Refused(self.identity(p), str(p), reason) for p, reason in walk.skipped if p not in unlisted],
            unlisted=[Refused(self.identity(p), str(p), reason) for p, reason in walk.unlisted],
        )
        if walk.truncated:
            listing.truncated = (f"the walk stopped at loader.max_files ({lc.max_files}); "
                                 "raise it to list every file")
        for path in walk.files:
            try:
                st = path.stat()
            except OSError as exc:  # gone or denied since the walk: kept, reported
                listing.refused.append(Refused(self.identity(path), str(path), exc.strerror or str(exc)))
                continue
            listing.entries.append(SourceEntry(self.identity(path), f"{st.st_size}:{st.st_mtime_ns}", str(path)))
        return listing

    def fetch(self, entry: SourceEntry) -> Path:
        return Path(entry.location)
