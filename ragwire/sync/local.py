"""``type: local`` sources: a folder (or one file) walked with the same safety rules as ``ingest_directory``.

Identity: a named source stores ``local://<name>/<path relative to its root>``, so the
folder moved, mounted elsewhere or synced from another machine is the same set of
documents.  An unnamed source stores the file's normalised absolute path, the same
identity ``ragwire ingest`` gives it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..config import LoaderConfig, LocalSource
from ..errors import LoaderError, SourceError
from ..ingest import IngestItem, source_id
from ..loaders import walk_directory
from ..loaders.walk import left_out_line
from .base import Listing, Refused, Source, SourceEntry


class LocalFolderSource(Source):
    """Files under ``path`` (recursively if asked), filtered by extension."""

    def __init__(self, config: LocalSource, loader: LoaderConfig) -> None:
        self.config = config
        self.loader = loader
        self.root = Path(source_id(config.path))
        self._root_prefix = str(self.root).rstrip(os.sep) + os.sep
        self.name = config.name
        # An unnamed source is keyed by its folder, so a relative and an absolute
        # spelling of one folder are one source.
        self.key = config.name if config.name else str(self.root)
        self.place = str(self.root)

    def identity(self, path: Path) -> str:
        if not self.name:
            return source_id(path)
        where = source_id(path)
        if where.startswith(self._root_prefix):  # the walk's paths: cheap string work, per file of 20k
            relative = where[len(self._root_prefix):]
        else:
            relative = path.name if self.root.is_file() else os.path.relpath(where, self.root)
        return f"local://{self.name}/{Path(relative).as_posix()}"

    def kind_changed(self, listing: Listing, owned: list[str]) -> str | None:
        if listing.root_kind == "file":
            mine = self.identity(self.root)
            if any(identity != mine for identity in owned):
                return (f"{self.root} is a file now, but this source stored documents from a folder there "
                        "(an unmounted path with a placeholder file?)")
        elif listing.root_kind == "folder" and not self.name and str(self.root) in owned:
            return f"{self.root} is a folder now, but this source stored it as one file"
        return None

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
            root_kind="file" if self.root.is_file() else "folder",
            left_out=left_out_line(walk.left_out),
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

    def relative(self, entry: SourceEntry) -> str:
        where = entry.location
        return Path(where[len(self._root_prefix):]).as_posix() if where.startswith(self._root_prefix) else ""

    def claims(self, path: str | Path) -> bool:
        """Whether ``path`` (a file given to ``ragwire ingest`` or ``delete``) is one of this source's."""
        where = source_id(path)
        root = str(self.root)
        return where == root or where.startswith(root.rstrip(os.sep) + os.sep)


def claim(path: str | Path, configs: Sequence[object], loader: LoaderConfig) -> IngestItem | None:
    """``path`` as the named local source that holds it stores it, or None when none does.

    A file of a named source is stored as ``local://<name>/…``; a hand ``ragwire ingest``
    or ``delete`` of its path must reach that document, not make or miss a second one
    under the machine's path.  (An unnamed source stores the path itself, so needs no claim.)
    """
    for config in configs:
        if not isinstance(config, LocalSource) or not config.name:
            continue
        source = LocalFolderSource(config, loader)
        if source.claims(path):
            return IngestItem(Path(path), source.identity(Path(path)), source.owner())
    return None
