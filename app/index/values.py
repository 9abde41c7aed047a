"""Values the code index hands out: chunk kinds, chunks, hits and what a refresh did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from app.workspace import SkippedFolder

Progress = Callable[[int, int], None]  # (files done, files to do)

# Why files and folders are not in the index, as `index` and the window say it: the walk's reasons
# (keys of app.workspace's HIDDEN_REASONS; .git is left unsaid) and the index's own.
SKIP_WORDS: dict[str, str] = {
    "unreadable": "unreadable",
    "not_utf8": "not UTF-8 (name)",
    "unprintable": "control characters in the name",
    "ignored": "ignored (.gitignore)",
    "binary": "binary",
    "too_big": "too big (index_max_file_bytes)",
    "secret": "secret-looking",
    "refused": "refused (hard links)",
    "symlink": "symlinks",
    "special": "not regular files",
}


class ChunkKind(str, Enum):
    """What a chunk is: a developer would recognise each."""

    CLASS = "class"  # a class (or struct, trait, interface) header: its line, docstring, fields
    FUNCTION = "function"
    METHOD = "method"
    CODE = "code"  # module-level code between definitions: constants, scripts
    IMPORTS = "imports"  # module-level code that is mostly import statements
    SECTION = "section"  # a Markdown or reStructuredText section, named by its heading path
    CONFIG = "config"  # a manifest, config file, licence or CI workflow, kept whole when small
    TEXT = "text"  # any other text, as overlapping windows of lines


@dataclass(frozen=True)
class Chunk:
    """A span of one file as the chunkers cut it; `doc` holds its docstring and leading comments."""

    start: int  # 1-based, inclusive
    end: int
    kind: ChunkKind
    symbol: str  # the name a developer calls it by ('Class.method', 'Intro > Install'), or ''
    text: str
    doc: str = ""
    names: tuple[str, ...] = ()  # further names defined in it (module constants, TOML tables)


@dataclass(frozen=True)
class ChunkHit:
    """A ranked chunk: where and what it is, and its text (lines start_line..end_line).
    `focus`: in a chunk longer than a hit shows, the lines to show (its first line, those holding
    the question's words); empty when it shows the chunk's start."""

    path: str
    start_line: int
    end_line: int
    kind: ChunkKind
    symbol: str
    score: float
    text: str
    focus: tuple[int, ...] = ()


@dataclass(frozen=True)
class IndexStats:
    """What a build or refresh did; `changed` counts added and modified files."""

    files: int  # files in the index now
    chunks: int
    seconds: float
    changed: int
    removed: int
    rebuilt: bool = (
        False  # True when the index was built from nothing (first use, --rebuild, bad DB)
    )
    truncated: bool = False  # the walk stopped at walk_max_entries: some files are not indexed
    skipped: tuple[tuple[str, int], ...] = ()  # (key of SKIP_WORDS, files and folders), in its order
    skipped_folders: tuple[SkippedFolder, ...] = ()  # folders left out whole (also counted in skipped)
    # the files the walk found, sorted as Workspace.file_list sorts them: a question's path checks
    # reuse them rather than walk the tree again
    paths: tuple[str, ...] = field(default=(), repr=False)

    def describe_skipped(self) -> str:
        return describe_skipped(self.skipped, self.skipped_folders)


def describe_wait(done: int, total: int) -> str:
    """What a process waiting for another one's index build says, with that one's progress."""
    where = f"{done}/{total} files" if total else "listing its files"
    return f"Waiting for another Burrow process that is indexing this folder ({where})"


def describe_skipped(skipped: tuple[tuple[str, int], ...], folders: tuple[SkippedFolder, ...]) -> str:
    """'' when nothing was skipped, else e.g. 'skipped: 2 unreadable, 1 binary; folders: locked/ (...)'."""
    if not skipped:
        return ""
    text = "skipped: " + ", ".join(f"{n} {SKIP_WORDS[k]}" for k, n in skipped)
    named = ", ".join(f.describe() for f in folders)
    return text + (f"; folders: {named}" if named else "")
