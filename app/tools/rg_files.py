"""Candidate files for find_files: ripgrep lists names, the Workspace then judges each one.

rg walks by name, so a rename or symlink swapped in mid-walk could make it report a path we must
not show. Its output is therefore only a list of names: each is checked again lexically, against
the secrets policy, and opened through the Workspace (confinement, regular file, hard links).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.errors import PathRefusedError, ToolExecutionError
from app.tools.rg import find_rg, run_rg
from app.workspace import MissingPathError, Workspace

# A last glob segment made only of these passes to rg as a name filter that means the same as ours.
_PLAIN_SEGMENT = re.compile(r"[^\[\]{}!,:\\/]+")


@dataclass(frozen=True)
class FoundFile:
    rel: str
    size: int
    binary: bool


@dataclass(frozen=True)
class FileScan:
    files: tuple[FoundFile, ...]  # sorted like a walk: folder by folder
    unprintable: int  # names with control characters
    refused: int  # names the workspace would not open (escaping symlink, hard link, unreadable)
    more: bool  # rg had more matching paths than we asked for
    timed_out: bool
    seen: int  # matching paths rg reported (before the workspace rules)
    not_utf8: int = 0  # names that are not valid UTF-8


def scan_files(ws: Workspace, pattern: str, regex: re.Pattern[str], want: int) -> FileScan:
    """Files whose path (or name, for a pattern without '/') matches `regex`; rg stops at `want` paths."""
    on_name = "/" not in pattern
    run = run_rg(_argv(ws, pattern), ws.root_fd, ws.root, ws.settings.search_timeout_s, want, sep=b"\0")
    if run.more:  # capped: which files make the cut must not depend on rg's thread timing
        run = run_rg(_argv(ws, pattern, sort=True), ws.root_fd, ws.root, ws.settings.search_timeout_s,
                     want, sep=b"\0")
    if not run.lines and run.returncode == 2 and run.stderr.strip():
        raise ToolExecutionError(f"listing files failed: {' '.join(run.stderr.split())[:300]}")
    found: list[FoundFile] = []
    unprintable = refused = not_utf8 = 0
    named: set[str] = set()  # a tracked file .gitignore matches is named to rg, and may be found too
    for raw in run.lines:
        verdict = _judge(ws, raw, regex, on_name)
        unprintable += verdict == "unprintable"
        not_utf8 += verdict == "not_utf8"
        refused += verdict == "refused"
        if isinstance(verdict, FoundFile) and verdict.rel not in named:
            found.append(verdict)
            named.add(verdict.rel)
    found.sort(key=lambda f: f.rel.split("/"))
    return FileScan(tuple(found), unprintable, refused, run.more, run.timed_out, len(run.lines), not_utf8)


def _argv(ws: Workspace, pattern: str, sort: bool = False) -> list[str]:
    # --sort=path makes rg single-threaded (about 2x slower): only a capped run needs its order,
    # an uncapped one is sorted by scan_files.
    # The same walk as search_text: no symlinks, one file system, hidden files, .gitignore as set.
    argv = [str(find_rg()), "--no-config", "--no-messages", "--files", "--null", "--color=never",
            *(["--sort=path"] if sort else []), "--no-follow", "--one-file-system", "--hidden",
            "--glob=!.git", "--no-require-git"]
    if not ws.settings.respect_gitignore:
        argv.append("--no-ignore")
    last = pattern.rsplit("/", 1)[-1]
    # Only a prefilter: any path our glob matches has a name matching its last segment. Our regex
    # decides; brace, class and '!' syntax differ between rg and us, so those are left to it.
    # A file type, not --glob: rg lets a --glob override .gitignore, a type filter does not.
    if _PLAIN_SEGMENT.fullmatch(last) and "**" not in last and last != "*":
        argv += [f"--type-add=burrowfind:{last}", "--type=burrowfind"]
    return [*argv, "--", ".", *ws.tracked_ignored()]  # tracked files .gitignore matches: named, as rg skips them


def _judge(ws: Workspace, raw: bytes, regex: re.Pattern[str], on_name: bool) -> FoundFile | str | None:
    try:
        rel = ws.normalize(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "not_utf8"  # never shown: no tool could open it by a name we could write
    except PathRefusedError:
        return "unprintable"  # control characters: never shown
    if rel == "." or not regex.match(rel.rsplit("/", 1)[-1] if on_name else rel):
        return None
    if ws.is_secret(rel):
        return None  # silently, as search_text: even a count would say that a secret matched
    try:
        size, sniffed = ws.probe(rel)
    except MissingPathError:
        return None  # vanished since rg saw it
    except (PathRefusedError, ToolExecutionError):
        return "refused"
    return FoundFile(rel, size, sniffed.binary)
