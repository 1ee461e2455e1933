"""Safe directory walking: which files under a folder should be loaded, and why others were not.

Symlinks never lead out of the root, cycles are cut, hidden entries, oversized
files, binary data posing as text, FIFOs, sockets, devices and symlink loops are
reported instead of loaded.  One bad entry is skipped with its reason; it never
ends the walk.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ragwire.errors import LoaderError
from ragwire.loaders.base import read_regular, special_file_kind
from ragwire.loaders.formats import IMAGE_EXTENSIONS, SUPPORTED_EXTENSIONS, TEXT_EXTENSIONS, normalize_extensions
from ragwire.loaders.text import looks_binary

logger = logging.getLogger(__name__)

_SNIFF_BYTES = 8192


@dataclass
class WalkResult:
    """What :func:`walk_directory` found.

    Attributes:
        files: Files to load, sorted by their path relative to the root.
        skipped: ``(path, reason)`` for every candidate left out, in the same order.
            Files with an unsupported extension are not candidates and are not listed.
        unlisted: ``(folder, reason)`` for every folder whose entries could not be read
            (also in ``skipped``): whatever it holds is unknown, not absent.
        truncated: The walk stopped at ``max_files``, so files past the limit are missing
            from ``files`` although they exist.
    """

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    unlisted: list[tuple[Path, str]] = field(default_factory=list)
    truncated: bool = False
    # Files of a type ragwire reads that ``extensions`` left out, by extension: counted in the
    # same walk, so a photo dropped into a folder of documents is never ignored without a word.
    left_out: dict[str, int] = field(default_factory=dict)


def walk_directory(
    root: str | os.PathLike[str],
    *,
    extensions: Iterable[str] | None = None,
    recursive: bool = False,
    include_hidden: bool = False,
    follow_symlinks: bool = False,
    max_file_bytes: int = 100 * 2**20,
    max_files: int = 100_000,
) -> WalkResult:
    """List the loadable files under ``root``.

    Args:
        root: A folder, or a single file (listed whatever its extension; the size, binary
            and regular-file checks still apply).
        extensions: Extensions to include (``".pdf"`` or ``"pdf"``); ``None`` means every supported one.
        recursive: Descend into subfolders.
        include_hidden: Include files and folders whose name starts with a dot.
        follow_symlinks: Follow symlinks that stay inside the root; links leading outside
            it are skipped either way.
        max_file_bytes: Files larger than this are skipped.
        max_files: Stop after this many files; one skipped entry says where the walk stopped.

    Returns:
        The files to load and the skipped candidates with a reason each.

    Raises:
        LoaderError: ``root`` does not exist.  Unreadable folders below it are skipped, not raised.
        ValueError: an extension is not supported, or a limit is not positive.
    """
    wanted = normalize_extensions(extensions)
    if max_file_bytes <= 0:
        raise ValueError(f"max_file_bytes must be positive, got {max_file_bytes}")
    if max_files <= 0:
        raise ValueError(f"max_files must be positive, got {max_files}")

    root_path = Path(root).expanduser()
    if not root_path.exists():
        raise LoaderError(f"{root_path}: no such file or folder — check the path")
    walker = _Walker(root_path, wanted, recursive, include_hidden, follow_symlinks, max_file_bytes, max_files)
    if root_path.is_dir():
        walker.walk(root_path)
    else:
        walker.consider_file(root_path)
    result = walker.finish()
    logger.debug("walked %s: %d files, %d skipped", root_path, len(result.files), len(result.skipped))
    return result


class _Walker:
    def __init__(
        self,
        root: Path,
        wanted: frozenset[str],
        recursive: bool,
        include_hidden: bool,
        follow_symlinks: bool,
        max_file_bytes: int,
        max_files: int,
    ) -> None:
        self.root = root
        self.root_text = str(root).rstrip(os.sep) + os.sep
        self.real_root = real_path(root)
        self.wanted = wanted
        self.recursive = recursive
        self.include_hidden = include_hidden
        self.follow_symlinks = follow_symlinks
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self.result = WalkResult()
        self.found: dict[Path, list[Path]] = {}  # real path -> every path that reached it
        self.visited_dirs: set[Path] = set()
        self.truncated = False

    def sort_key(self, path: Path) -> tuple[str, ...]:
        # String work, not Path.relative_to: this runs for every file of a 20k-file walk.
        text, root = str(path), self.root_text
        if text.startswith(root):
            return tuple(text[len(root):].split(os.sep))
        if text == str(self.root):
            return ()
        return path.parts

    def skip(self, path: Path, reason: str) -> None:
        self.result.skipped.append((path, reason))

    def walk(self, folder: Path) -> None:
        """Depth-first over sorted names with an explicit stack: deterministic, no recursion limit.

        Symlinked folders wait until every real folder is done, so a file is
        listed under its real path rather than under a link to it.
        """
        self.visited_dirs.add(real_path(folder))
        stack = [folder]
        linked: list[Path] = []
        while not self.truncated:
            if not stack:
                if not linked:
                    break
                link = linked.pop(0)
                if self.enter(link):
                    stack.append(link)
                continue
            current = stack.pop()
            try:
                with os.scandir(current) as handle:
                    entries = sorted(handle, key=lambda entry: entry.name)
            except OSError as exc:
                self.unlist(current, why_unreadable(current, exc))
                continue
            unsearchable = unsearchable_reason(current)
            if unsearchable is not None:
                # Names without entries: what lies beneath is unknown, not absent.
                self.unlist(current, unsearchable)
                continue
            try:
                # A file that is no symlink itself lies, really, in its folder's real path:
                # resolved once per folder instead of once per file.
                real_current: Path | None = real_path(current)
            except OSError:
                real_current = None
            subfolders = []
            for entry in entries:
                if self.truncated:
                    break
                try:
                    subfolder = self.consider_entry(entry, real_current)
                    if subfolder is None:
                        continue
                    if entry.is_symlink():
                        linked.append(subfolder)
                    elif self.enter(subfolder):
                        subfolders.append(subfolder)
                except OSError as exc:  # a symlink loop, an entry gone mid-walk: skip it, walk on
                    self.skip(Path(entry.path), why_unreadable(Path(entry.path), exc))
            stack.extend(reversed(subfolders))

    def unlist(self, folder: Path, reason: str) -> None:
        """Record a folder whose contents could not be seen (also a skipped candidate)."""
        self.skip(folder, reason)
        self.result.unlisted.append((folder, reason))

    def enter(self, folder: Path) -> bool:
        """Whether to descend into ``folder``: not when its real path was visited already."""
        try:
            real = real_path(folder)
        except OSError as exc:
            reason = why_unreadable(folder, exc)
            if exc.errno == errno.ELOOP or isinstance(exc, FileNotFoundError):
                self.skip(folder, reason)  # a loop or a dangling link holds nothing to keep
            else:
                self.unlist(folder, reason)  # a real folder that could not be entered may hold anything
            return False
        if real in self.visited_dirs:
            self.skip(folder, "folder already visited (symlink cycle or duplicate)")
            return False
        self.visited_dirs.add(real)
        return True

    def consider_entry(self, entry: os.DirEntry[str], real_folder: Path | None = None) -> Path | None:
        """Handle one folder entry; return it when it is a subfolder to descend into."""
        path = Path(entry.path)
        is_link = entry.is_symlink()
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_dir = False
        if not is_dir and path.suffix.lower() not in self.wanted:
            suffix = path.suffix.lower()
            if suffix in SUPPORTED_EXTENSIONS and (self.include_hidden or not entry.name.startswith(".")):
                self.result.left_out[suffix] = self.result.left_out.get(suffix, 0) + 1
            return None
        if is_dir and not self.recursive:
            return None
        if entry.name.startswith(".") and not self.include_hidden:
            self.skip(path, "hidden")
            return None
        if is_link:
            if not self.follow_symlinks:
                self.skip(path, "symlink not followed")
                return None
            if not real_path(path).is_relative_to(self.real_root):
                self.skip(path, "symlink points outside the root")
                return None
        if is_dir:
            return path
        self.consider_file(path, real_folder / entry.name if real_folder is not None and not is_link else None)
        return None

    def consider_file(self, path: Path, real: Path | None = None) -> None:
        """Take ``path`` as a file to load, or skip it with the reason; ``real`` is its real
        path when the caller knows it (the file is no symlink and its folder's is known)."""
        try:
            info = path.stat()
            kind = special_file_kind(info.st_mode)
            if kind is not None:
                # Never opened: reading a FIFO blocks until a writer comes, a device may never end.
                self.skip(path, f"not a regular file ({kind})")
                return
            if real is None:
                real = real_path(path)
        except OSError as exc:
            self.skip(path, why_unreadable(path, exc))
            return
        if real in self.found:
            self.found[real].append(path)
            return
        if len(self.found) >= self.max_files:
            self.skip(path, f"stopped at the max_files limit of {self.max_files}")
            self.truncated = True
            return
        if info.st_size > self.max_file_bytes:
            self.skip(path, f"larger than {self.max_file_bytes / 2**20:.1f} MB limit")
            return
        if path.suffix.lower() in TEXT_EXTENSIONS:
            try:
                sample = read_regular(path, _SNIFF_BYTES)
            except OSError as exc:
                self.skip(path, why_unreadable(path, exc))
                return
            if sample is None:
                self.skip(path, "not a regular file (replaced during the walk)")
                return
            if looks_binary(sample):
                self.skip(path, "binary content in a text file")
                return
        self.found[real] = [path]

    def links_on_the_way(self, path: Path) -> int:
        """How many symlinks lie between the root and ``path`` (``path`` included)."""
        parts = self.sort_key(path)
        return sum((self.root.joinpath(*parts[: i + 1])).is_symlink() for i in range(len(parts)))

    def finish(self) -> WalkResult:
        """Pick one path per real file (a path without symlinks if there is one) and sort."""
        for paths in self.found.values():
            if len(paths) == 1:
                keep = paths[0]
            else:
                keep = min(paths, key=lambda p: (self.links_on_the_way(p), self.sort_key(p)))
            self.result.files.append(keep)
            for other in paths:
                if other is not keep:
                    self.skip(other, f"same file as {keep}")
        self.result.files.sort(key=self.sort_key)
        self.result.skipped.sort(key=lambda item: self.sort_key(item[0]))
        self.result.truncated = self.truncated
        return self.result


def real_path(path: Path) -> Path:
    """``path`` with every symlink resolved.

    Raises:
        OSError: ELOOP for a symlink loop, ENOENT for a broken link.  (``Path.resolve()``
            raises RuntimeError for a loop before Python 3.13 and hides it after.)
    """
    return Path(os.path.realpath(path, strict=True))


def unsearchable_reason(folder: Path) -> str | None:
    """Why the entries of a listable ``folder`` cannot be looked at, or None when they can.

    Reading a folder's names needs its r bit, looking at its entries its x bit: with r but
    not x (a ``chmod -R 644`` on a tree), scandir succeeds and every entry then fails, which
    would make a whole subtree look empty.  Resolving ``folder/.`` needs exactly the x bit.
    """
    try:
        os.stat(os.path.join(folder, os.curdir))
    except PermissionError:
        return "permission denied (names readable but the folder cannot be searched: it lacks the x bit)"
    except OSError as exc:
        return why_unreadable(folder, exc)
    return None


def why_unreadable(path: Path, exc: OSError) -> str:
    """The skip reason for an entry that stat(), realpath() or open() refused."""
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if isinstance(exc, FileNotFoundError):
        return "broken symlink" if path.is_symlink() else "vanished during the walk"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot be read ({exc.strerror or exc})"


def left_out_line(left_out: dict[str, int], ocr_hint: str | None = None) -> str | None:
    """One line counting the files a walk left out for their extension ("2 files … (.png ×2) —
    add …"), or None when there were none; ``ocr_hint`` is said when images are among them and
    no OCR engine is installed."""
    if not left_out:
        return None
    count = sum(left_out.values())
    listed = ", ".join(f"{ext} ×{n}" for ext, n in sorted(left_out.items()))
    images = f"; images need OCR: {ocr_hint}" if ocr_hint and set(left_out) & set(IMAGE_EXTENSIONS) else ""
    return (f"{count} file{'' if count == 1 else 's'} of a type left out of loader.extensions ({listed})"
            f" — add the extension to loader.extensions to ingest them{images}")
