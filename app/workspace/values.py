"""Values the workspace hands to tools: entries, what was hidden, file text."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from app.workspace.content import Sniffed

EntryKind = Literal["file", "dir", "symlink", "special"]

# Why an entry was left out of a listing or walk, in the words the model sees.
HIDDEN_REASONS: dict[str, str] = {
    "secret": "secret-looking (refused by the secrets policy)",
    "ignored": ".gitignored",
    "binary": "binary",
    "vcs": "version-control folder (.git)",
    "unreadable": "unreadable (permission denied)",
    "not_utf8": "with a name that is not valid UTF-8",
    "unprintable": "with control characters in the name",
    "symlink": "symlink (not followed)",
    "special": "not a regular file (pipe, socket or device)",
}

# Why a folder was left out whole, in a few words after its name.
SKIPPED_FOLDER_REASONS: dict[str, str] = {
    "unreadable": "unreadable: permission denied",
    "not_utf8": "name not valid UTF-8",
    "unprintable": "control characters in the name",
}


@dataclass(frozen=True)
class Entry:
    """One listed thing, named by its workspace-relative path."""

    rel: str
    kind: EntryKind
    size: int = 0
    note: str = ""
    mtime_ns: int = 0  # files only: with size and inode, how the code index tells a file changed
    inode: int = 0

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class HiddenCounts:
    """How many entries were left out, per reason (keys of HIDDEN_REASONS)."""

    counts: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_counter(cls, counter: Counter[str]) -> HiddenCounts:
        return cls(tuple((k, counter[k]) for k in HIDDEN_REASONS if counter.get(k)))

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    def get(self, reason: str) -> int:
        return dict(self.counts).get(reason, 0)

    def describe(self) -> str:
        """'' when nothing was hidden, else e.g. 'hidden: 2 secret-looking (...), 5 .gitignored'."""
        if not self.counts:
            return ""
        return "hidden: " + ", ".join(f"{n} {HIDDEN_REASONS[k]}" for k, n in self.counts)


@dataclass(frozen=True)
class SkippedFolder:
    """A folder a walk left out with everything in it, named so a person can find it: unreadable,
    or with a name that is not valid UTF-8 or holds control characters (escaped, as `caf\\xe9`)."""

    rel: str  # workspace-relative; escaped, so it may not be a path the tools accept
    reason: str  # a key of HIDDEN_REASONS: unreadable, not_utf8 or unprintable

    def describe(self) -> str:
        return f"{self.rel}/ ({SKIPPED_FOLDER_REASONS[self.reason]})"


class HiddenTally:
    """What a walk leaves out as it goes (mutable, private to one walk): a count per reason and
    the folders left out whole, named."""

    def __init__(self) -> None:
        self.counter: Counter[str] = Counter()
        self.folders: list[SkippedFolder] = []

    def hide(self, reason: str) -> None:
        self.counter[reason] += 1
        return None

    def skip_folder(self, rel: str, reason: str) -> None:
        self.folders.append(SkippedFolder(rel, reason))
        return self.hide(reason)

    def counts(self) -> HiddenCounts:
        return HiddenCounts.from_counter(self.counter)

    def sorted_folders(self) -> tuple[SkippedFolder, ...]:
        return tuple(sorted(self.folders, key=lambda f: f.rel.split("/")))


@dataclass(frozen=True)
class Listing:
    """A directory level or a walk: entries in sorted order, what was hidden, whether it was cut,
    and the folders left out whole (also counted in `hidden`)."""

    entries: tuple[Entry, ...]
    hidden: HiddenCounts
    truncated: bool = False
    skipped_folders: tuple[SkippedFolder, ...] = ()


@dataclass(frozen=True)
class TextFile:
    """A file read through the workspace. `text` is empty for binary files."""

    rel: str
    size: int
    text: str
    sniffed: Sniffed
    complete: bool  # False when only the first settings.file_scan_max_bytes were read

    @property
    def binary(self) -> bool:
        return self.sniffed.binary


def split_lines(text: str) -> list[str]:
    """Lines as ripgrep and editors count them: split on \\n only, a trailing \\r dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
