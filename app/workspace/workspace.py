"""The workspace: the only door to disk for tools. Everything goes through one held root descriptor."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from app.errors import PathRefusedError, ToolExecutionError, WorkspaceError
from app.settings import Settings
from app.workspace import git_index
from app.workspace.content import SNIFF_BYTES, Sniffed, decode, sniff
from app.workspace.ignore import IgnoreLayer, is_ignored, parse_gitignore
from app.workspace.lexical import escaped_name, has_control_chars, join_parts, split_relative
from app.workspace.opener import BeneathOpener, EscapeError
from app.workspace.secrets import SecretsRule
from app.workspace.values import Entry, HiddenTally, Listing, TextFile

_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY
_PROBE_FLAGS = getattr(os, "O_PATH", os.O_RDONLY | os.O_NONBLOCK)
_GITIGNORE_MAX_BYTES = 256 * 1024
_SURROGATE = re.compile("[\udc80-\udcff]")  # os.fsdecode's stand-ins for bytes that are not UTF-8


class MissingPathError(ToolExecutionError):
    """The path does not exist in the workspace (the tool suggests find_files)."""


class UnreadablePathError(ToolExecutionError):
    """The system refuses to open the path (permission denied); a walk skips such a folder."""


class Workspace:
    """A folder the tools may read. The path is resolved once; after that only the descriptor counts."""

    def __init__(self, root: Path | str, settings: Settings, *, force_fallback: bool = False) -> None:
        self.settings = settings
        self.root = check_folder(root)
        self._root_fd = _open_root(self.root)
        self._opener = BeneathOpener(self._root_fd, force_fallback)
        self._secrets = SecretsRule(settings.secrets_policy)
        self._tracked = _Tracked()  # what git tracks (re-read when .git/index changes)

    # lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten close must not leak a descriptor per question
        try:
            self.close()
        except Exception:
            pass

    @property
    def name(self) -> str:
        return self.root.name or str(self.root)

    @property
    def strategy(self) -> str:
        """'openat2' or 'O_NOFOLLOW walk': which confinement mechanism this system uses."""
        return self._opener.strategy

    @property
    def root_fd(self) -> int:
        """The held root descriptor (search runs ripgrep inside it via /proc/self/fd)."""
        return self._root_fd

    # paths -------------------------------------------------------------------------------------
    def parts(self, path: str) -> tuple[str, ...]:
        """Lexical check only: refuse what must never touch the disk."""
        return split_relative(path, self.settings.max_path_chars)

    def normalize(self, path: str) -> str:
        return join_parts(self.parts(path))

    def is_secret(self, rel: str) -> bool:
        """The secrets policy for a file path, including files inside credential folders like .ssh/."""
        return self._secrets.matches(rel) or any(self._secrets.matches_dir(p) for p in _prefixes(rel))

    def kind(self, path: str) -> str:
        """'file' or 'dir' for a path that may be read or listed; raises like the readers do."""
        parts = self.parts(path)
        rel = join_parts(parts)
        self._refuse_secret(rel)
        fd = self._open(parts, _PROBE_FLAGS)
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            return "dir"
        self._refuse_unreadable(rel, st)
        return "file"

    # files -------------------------------------------------------------------------------------
    @contextmanager
    def open_file(self, path: str) -> Iterator[tuple[int, os.stat_result, str]]:
        """Yield (fd, fstat, rel) of a regular, non-secret file; the fd closes afterwards."""
        parts = self.parts(path)
        rel = join_parts(parts)
        if not parts:
            raise ToolExecutionError(". is the workspace folder, not a file: use list_dir")
        self._refuse_secret(rel)
        fd = self._open(parts, _FILE_FLAGS)
        try:
            st = os.fstat(fd)
            self._refuse_unreadable(rel, st)
            yield fd, st, rel
        finally:
            os.close(fd)

    def read_text(self, path: str) -> TextFile:
        """Read a file as text (BOM sniffed, UTF-8 with replacement); binary files give no text."""
        with self.open_file(path) as (fd, st, rel):
            head = _pread_all(fd, SNIFF_BYTES, 0)
            sniffed = sniff(head)
            if sniffed.binary:
                return TextFile(rel, st.st_size, "", sniffed, True)
            cap = self.settings.file_scan_max_bytes
            data = head + _pread_all(fd, cap - len(head), len(head)) if len(head) == SNIFF_BYTES else head
            complete = len(data) < cap
            return TextFile(rel, st.st_size, decode(data, sniffed), sniffed, complete)

    def sniff(self, path: str) -> Sniffed:
        return self.probe(path)[1]

    def probe(self, path: str) -> tuple[int, Sniffed]:
        """Size and sniffed type of a readable file, reading only its first bytes."""
        with self.open_file(path) as (fd, st, _rel):
            return st.st_size, sniff(_pread_all(fd, SNIFF_BYTES, 0))

    # listings ----------------------------------------------------------------------------------
    def list_tree(self, path: str = ".", depth: int = 1, *, files_only: bool = False) -> Listing:
        """Entries beneath a folder, `depth` levels deep, sorted, symlinks never descended."""
        parts = self.parts(path)
        rel = join_parts(parts)
        if parts and self._secrets.matches_dir(rel):
            raise PathRefusedError(f"{rel} is refused by the secrets policy")
        hidden = HiddenTally()
        entries: list[Entry] = []
        truncated = self._scan_tree(parts, depth, files_only, entries, hidden)
        entries.sort(key=lambda e: e.rel.split("/"))
        return Listing(tuple(entries), hidden.counts(), truncated, hidden.sorted_folders())

    def file_list(self, limit: int) -> tuple[str, ...]:
        """Existing relative file paths (not secret, not ignored), sorted, at most `limit`."""
        listing = self.list_tree(".", depth=64, files_only=True)
        return tuple(e.rel for e in listing.entries[:limit])

    def top_level_summary(self, limit: int | None = None) -> str:
        """A short view of the root for the prompt: top-level entries, folders marked with '/'."""
        listing = self.list_tree(".", 1)
        cap = limit or self.settings.list_max_entries
        names = [e.name + ("/" if e.kind == "dir" else "") for e in listing.entries[:cap]]
        more = len(listing.entries) - len(names)
        tail = [f"... and {more} more"] if more > 0 else []
        hidden = [listing.hidden.describe()] if listing.hidden.total else []
        return "\n".join([f"workspace {self.name}/", *names, *tail, *hidden])

    def tracked_ignored(self, path: str = ".") -> tuple[str, ...]:
        """Files beneath `path` that git tracks though a .gitignore matches them (the walk keeps
        them; ripgrep, which skips them, is given them by name). Worked out once per index state."""
        self._read_git_index()
        if not self._tracked.files or not self.settings.respect_gitignore:
            return ()
        if self._tracked.ignored is None:
            self._tracked = replace(self._tracked, ignored=self._ignored_of(self._tracked.files))
        parts = self.parts(path)
        rel = join_parts(parts) if parts else ""
        return tuple(f for f in self._tracked.ignored or () if not rel or f.startswith(rel + "/"))

    def _ignored_of(self, files: frozenset[str]) -> tuple[str, ...]:
        layers: dict[tuple[str, ...], tuple[IgnoreLayer, ...]] = {(): self._layers_for(())}
        ignored: dict[tuple[str, ...], bool] = {(): False}  # a folder, or one above it, is ignored

        def folder_ignored(folder: tuple[str, ...]) -> bool:
            if folder not in ignored:
                above = folder[:-1]
                ignored[folder] = folder_ignored(above) or is_ignored(layers_of(above), "/".join(folder), True)
            return ignored[folder]

        def layers_of(folder: tuple[str, ...]) -> tuple[IgnoreLayer, ...]:
            if folder not in layers:
                layers[folder] = layers_of(folder[:-1]) + self._layer(folder)
            return layers[folder]

        out = []
        for file in sorted(files):
            folder = tuple(file.split("/")[:-1])
            if folder_ignored(folder) or is_ignored(layers_of(folder), file, False):
                out.append(file)
        return tuple(out)

    def _read_git_index(self) -> None:
        """Keep `_tracked` as `.git/index` has it now: one fstat when it has not changed."""
        try:
            fd = self._opener.open((".git", "index"), _FILE_FLAGS | os.O_NOFOLLOW)
        except OSError:
            self._tracked = _Tracked()
            return
        try:
            st = os.fstat(fd)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            if stamp == self._tracked.stamp:
                return
            if not stat.S_ISREG(st.st_mode) or st.st_size > git_index.MAX_INDEX_BYTES:
                self._tracked = _Tracked(stamp)
                return
            data = _pread_all(fd, st.st_size, 0)
        finally:
            os.close(fd)
        paths = git_index.tracked_paths(data, git_index.hash_bytes_of(self._git_config())) or frozenset()
        self._tracked = _Tracked(stamp, paths, git_index.tracked_folders(paths))

    def _git_config(self) -> str:
        try:
            fd = self._opener.open((".git", "config"), _FILE_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return ""
        try:
            return _pread_all(fd, _GITIGNORE_MAX_BYTES, 0).decode("utf-8", "replace")
        finally:
            os.close(fd)

    def _scan_tree(self, start: tuple[str, ...], depth: int, files_only: bool,
                   entries: list[Entry], hidden: HiddenTally) -> bool:
        if self.settings.respect_gitignore:
            self._read_git_index()
        budget = self.settings.walk_max_entries
        pending = [(start, 1, self._layers_for(start), True)]
        seen = 0
        while pending:
            parts, level, layers, own_rules = pending.pop()
            try:
                found, layers = self._children(parts, layers, own_rules, hidden, files_only, parts == start)
            except (UnreadablePathError, MissingPathError, PathRefusedError) as exc:
                if parts == start:  # the folder asked for: its tool says why it cannot be listed
                    raise
                if isinstance(exc, UnreadablePathError):  # made unreadable since its parent was listed
                    hidden.skip_folder(join_parts(parts), "unreadable")
                continue  # else removed, or swapped for a symlink, since: it is not in the workspace now
            for entry in found:
                seen += 1
                if seen > budget:
                    return True
                if entry.kind != "dir" or not files_only:
                    entries.append(entry)
                if entry.kind == "dir" and level < depth:
                    pending.append((tuple(entry.rel.split("/")), level + 1, layers, False))
        return False

    def _children(self, parts: tuple[str, ...], layers: tuple[IgnoreLayer, ...], own_rules: bool,
                  hidden: HiddenTally, files_only: bool,
                  follow: bool) -> tuple[list[Entry], tuple[IgnoreLayer, ...]]:
        """The folder's entries and the ignore layers beneath it (its own .gitignore added)."""
        # The folder asked for may be an in-workspace symlink; folders found while walking are not followed.
        fd = self._open(parts, _DIR_FLAGS | (0 if follow else os.O_NOFOLLOW))
        try:  # the entries stat through fd: it stays open until they are classified
            with os.scandir(fd) as it:
                listed = list(it)
            if not own_rules and any(de.name == ".gitignore" for de in listed):
                layers += self._layer(parts)  # probing only folders that list one: an open saved per folder
            found = [self._classify(parts, de, layers, hidden, files_only) for de in listed]
        finally:
            os.close(fd)
        return [e for e in found if e is not None], layers

    def _classify(self, parts: tuple[str, ...], de: os.DirEntry, layers: tuple[IgnoreLayer, ...],
                  hidden: HiddenTally, files_only: bool) -> Entry | None:
        bad_name = "not_utf8" if _undecodable(de.name) else "unprintable" if has_control_chars(de.name) else ""
        if bad_name:  # never shown as a path; a folder is named (escaped), since all it holds goes too
            is_dir = _is_dir_entry(de)
            folder = join_parts((*parts, escaped_name(de.name))) if is_dir else None
            return hidden.skip_folder(folder, bad_name) if folder else hidden.hide(bad_name)
        rel = join_parts((*parts, de.name))
        try:
            if de.is_symlink():
                return hidden.hide("symlink") if files_only else Entry(rel, "symlink", 0, self._link_note(rel))
            if de.is_dir(follow_symlinks=False):
                return self._classify_dir(rel, de.name, layers, hidden)
            if not de.is_file(follow_symlinks=False):
                return hidden.hide("special")
            return self._classify_file(rel, de, layers, hidden)
        except PermissionError:  # in a folder we may list but not enter (r without x)
            return hidden.hide("unreadable")
        except OSError:  # vanished between listing and stat: leave it out, it no longer exists
            return None

    def _classify_dir(self, rel: str, name: str, layers: tuple[IgnoreLayer, ...],
                      hidden: HiddenTally) -> Entry | None:
        if name == ".git":
            return hidden.hide("vcs")
        if self._secrets.matches_dir(rel):
            return hidden.hide("secret")
        if self.settings.respect_gitignore and is_ignored(layers, rel, True) and rel not in self._tracked.folders:
            return hidden.hide("ignored")
        if not self._can_enter(rel):  # one open per folder: a listing must not show what a walk skips
            return hidden.skip_folder(rel, "unreadable")
        return Entry(rel, "dir")

    def _can_enter(self, rel: str) -> bool:
        try:
            os.close(self._opener.open(tuple(rel.split("/")), _DIR_FLAGS | os.O_NOFOLLOW))
        except PermissionError:
            return False
        except OSError:  # gone or swapped since listed: the walk decides when it gets there
            return True
        return True

    def _classify_file(self, rel: str, de: os.DirEntry, layers: tuple[IgnoreLayer, ...],
                       hidden: HiddenTally) -> Entry | None:
        if self._secrets.matches(rel):
            return hidden.hide("secret")
        if self.settings.respect_gitignore and is_ignored(layers, rel, False) and rel not in self._tracked.files:
            return hidden.hide("ignored")
        st = de.stat(follow_symlinks=False)
        return Entry(rel, "file", st.st_size, mtime_ns=st.st_mtime_ns, inode=st.st_ino)

    def _link_note(self, rel: str) -> str:
        try:
            return f"symlink to a {self.kind(rel)} inside the workspace"
        except (PathRefusedError, ToolExecutionError):
            return "symlink that leads outside the workspace or nowhere (refused)"

    # gitignore ---------------------------------------------------------------------------------
    def _layers_for(self, parts: tuple[str, ...]) -> tuple[IgnoreLayer, ...]:
        layers: tuple[IgnoreLayer, ...] = ()
        for i in range(len(parts) + 1):
            layers += self._layer(parts[:i])
        return layers

    def _layer(self, dir_parts: tuple[str, ...]) -> tuple[IgnoreLayer, ...]:
        if not self.settings.respect_gitignore:
            return ()
        try:
            fd = self._opener.open((*dir_parts, ".gitignore"), _FILE_FLAGS | os.O_NOFOLLOW)
        except OSError:
            return ()
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ()
            text = _pread_all(fd, _GITIGNORE_MAX_BYTES, 0).decode("utf-8", "replace")
        finally:
            os.close(fd)
        rules = parse_gitignore(text)
        return (IgnoreLayer("/".join(dir_parts), rules),) if rules else ()

    # checks ------------------------------------------------------------------------------------
    def _open(self, parts: tuple[str, ...], flags: int) -> int:
        rel = join_parts(parts)
        try:
            return self._opener.open(parts, flags)
        except EscapeError:
            raise PathRefusedError(f"{rel} leads outside the workspace (through a symlink): refused") from None
        except OSError as exc:
            raise _os_error(exc, rel) from None

    def _refuse_secret(self, rel: str) -> None:
        if self.is_secret(rel):
            raise PathRefusedError(
                f"{rel} looks like a credential and is refused by the secrets policy "
                "(the user can turn it off in settings)"
            )

    def _refuse_unreadable(self, rel: str, st: os.stat_result) -> None:
        if stat.S_ISDIR(st.st_mode):
            raise ToolExecutionError(f"{rel} is a folder, not a file: use list_dir(path={json.dumps(rel)})")
        if not stat.S_ISREG(st.st_mode):
            raise PathRefusedError(f"{rel} is {_mode_name(st.st_mode)}, not a regular file: refused")
        if st.st_nlink > 1 and not self.settings.allow_hardlinks:
            raise PathRefusedError(
                f"{rel} has {st.st_nlink} hard links; a hard link can point at a file outside the "
                "workspace, so such files are refused (the user can allow them in settings)"
            )


@dataclass(frozen=True)
class _Tracked:
    """The files git tracks in the workspace and the folders holding them, as of `stamp` (the
    index file's mtime, size and inode); empty outside a git repository."""

    stamp: tuple[int, int, int] | None = None
    files: frozenset[str] = frozenset()
    folders: frozenset[str] = frozenset()
    ignored: tuple[str, ...] | None = None  # the tracked files a .gitignore matches, once worked out


def check_folder(raw: Path | str | None) -> Path:
    """The resolved folder a user named as the workspace, or WorkspaceError saying why not.

    The one place that decides "is this a workspace folder" (CLI, window and tools all call it).
    An empty name is refused rather than read as the current directory.
    """
    if raw is None or not str(raw).strip():
        raise WorkspaceError("No folder was given: name the project folder to ask about.")
    root = Path(raw).expanduser()
    try:
        resolved = root.resolve(strict=True)
    except FileNotFoundError:
        raise WorkspaceError(f"This folder does not exist: {root}") from None
    except (OSError, RuntimeError) as exc:
        raise WorkspaceError(f"This folder cannot be opened: {root} ({exc})") from None
    if not resolved.is_dir():
        raise WorkspaceError(f"{root.name} is a file; choose the folder that contains your code.")
    return resolved


def _open_root(root: Path) -> int:
    try:
        return os.open(root, _DIR_FLAGS | os.O_CLOEXEC)
    except OSError as exc:
        raise WorkspaceError(f"workspace folder {root} cannot be opened: {exc.strerror}") from None


def _os_error(exc: OSError, rel: str) -> Exception:
    code = exc.errno
    if code in (errno.ENOENT,):
        return MissingPathError(f"{rel} does not exist in the workspace")
    if code == errno.ENOTDIR:
        return MissingPathError(f"{rel} does not exist (a part of the path is a file, not a folder)")
    if code == errno.ELOOP:
        return PathRefusedError(f"{rel} is a symlink loop or a link through /proc: refused")
    if code in (errno.EACCES, errno.EPERM):
        return UnreadablePathError(f"permission denied: {rel}")
    if code == errno.EXDEV:
        return PathRefusedError(f"{rel} leads outside the workspace: refused")
    return ToolExecutionError(f"cannot open {rel}: {os.strerror(code) if code else exc}")


def _pread_all(fd: int, size: int, offset: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.pread(fd, min(size, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _mode_name(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _prefixes(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]


def _undecodable(name: str) -> bool:
    return not name.isascii() and _SURROGATE.search(name) is not None


def _is_dir_entry(de: os.DirEntry) -> bool:
    try:
        return de.is_dir(follow_symlinks=False)
    except OSError:
        return False
