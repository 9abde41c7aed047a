"""list_dir and find_files: what is in the workspace, capped, with what was hidden and why."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from app.errors import PathRefusedError, ToolExecutionError
from app.tools.base import ToolOutput
from app.tools.calls_text import call_text, cut_note
from app.tools.rg_files import FileScan, scan_files
from app.workspace import Entry, Listing, Workspace, human_size
from app.workspace.ignore import glob_regex
from app.workspace.lexical import has_control_chars
from app.workspace.values import HIDDEN_REASONS

MAX_DEPTH = 6
MAX_NAMED_FOLDERS = 10  # skipped folders named in one listing; the rest are counted


class ListDirArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(".", description="folder relative to the workspace root; '.' is the root")
    depth: int = Field(1, ge=1, le=MAX_DEPTH, description="how many levels of sub-folders to include")
    offset: int = Field(0, ge=0, description="skip this many entries (to page through a long listing)")


class FindFilesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, max_length=500, description=(
        "glob over workspace-relative paths, e.g. '**/*.py' or 'src/*.ts'; without '/', it matches "
        "file names at any depth"))
    offset: int = Field(0, ge=0, description="skip this many matches (to page through many results)")


def list_dir(ws: Workspace, args: ListDirArgs) -> ToolOutput:
    """List a folder's files and sub-folders with sizes; folders end with '/'.

    Args:
        path: folder relative to the workspace root.
        depth: how many levels of sub-folders to include.
        offset: skip this many entries.
    """
    if ws.kind(args.path) == "file":
        raise ToolExecutionError(f"{ws.normalize(args.path)} is a file, not a folder: use "
                                 f"{call_text('read_file', path=ws.normalize(args.path))}")
    listing = ws.list_tree(args.path, args.depth)
    return ToolOutput("\n".join(_entry_lines(ws, args, listing)))


def _entry_lines(ws: Workspace, args: ListDirArgs, listing: Listing) -> list[str]:
    """A page of the folder's entries (binary files left out), what is hidden, and how to see more."""
    rel = ws.normalize(args.path)
    entries = [e for e in listing.entries if e.kind != "file" or not _is_binary(ws, e)]
    binary = len(listing.entries) - len(entries)
    page = entries[args.offset:args.offset + ws.settings.list_max_entries]
    title = "the workspace root" if rel == "." else rel + "/"
    lines = [f"{title}: {len(entries)} entries (depth {args.depth})"]
    lines += [_entry_line(e) for e in page]
    if binary:
        lines.append(f"skipped: {binary} binary files (read_file on one reports its type and size)")
    return (lines + _hidden_lines(listing) + skipped_folder_lines(listing)
            + _more_entries(args, rel, len(entries), len(page)))


def skipped_folder_lines(listing: Listing) -> list[str]:
    """Name the folders left out whole: nothing in them is listed, searched or indexed."""
    folders = listing.skipped_folders
    if not folders:
        return []
    named = ", ".join(f.describe() for f in folders[:MAX_NAMED_FOLDERS])
    more = f", and {len(folders) - MAX_NAMED_FOLDERS} more" if len(folders) > MAX_NAMED_FOLDERS else ""
    return [f"skipped folders (nothing in them is listed, searched or indexed): {named}{more}"]


def _more_entries(args: ListDirArgs, rel: str, count: int, shown: int) -> list[str]:
    end = args.offset + shown
    if end >= count:
        return []
    return [cut_note(f"showed entries {args.offset + 1}-{end} of {count}",
                     call_text("list_dir", path=rel, depth=args.depth, offset=end))]


def find_files(ws: Workspace, args: FindFilesArgs) -> ToolOutput:
    """Find files whose path matches a glob such as '**/*.py'; sorted, with the total count.

    Args:
        pattern: glob over workspace-relative paths.
        offset: skip this many matches.
    """
    regex = _pattern_regex(args.pattern)
    # Paths rg may report; it grows with the offset, so each next call reaches further into a huge tree.
    want = args.offset + ws.settings.walk_max_entries + 1
    scan = scan_files(ws, args.pattern.strip("/"), regex, want)
    return ToolOutput("\n".join(_match_lines(ws, args, scan)))


def _match_lines(ws: Workspace, args: FindFilesArgs, scan: FileScan) -> list[str]:
    """The page of matching text files, what was left out and why, and how to see more."""
    text_files = [f for f in scan.files if not f.binary]
    binary = len(scan.files) - len(text_files)
    page = text_files[args.offset:args.offset + ws.settings.find_max_results]
    lines = [f"{len(text_files)} files match {args.pattern!r}" + (":" if page else ".")]
    lines += [f"{f.rel}  ({human_size(f.size)})" for f in page]
    if binary:
        lines.append(f"skipped: {binary} binary files that match")
    lines += _scan_notes(scan)
    if ws.settings.respect_gitignore or ws.settings.secrets_policy:
        lines.append(_policy_note(ws))
    return lines + _more_note(args, scan, len(text_files), len(page))


def _more_note(args: FindFilesArgs, scan: FileScan, matched: int, shown: int) -> list[str]:
    """How to see the next page, or a hint about patterns when nothing matched."""
    end = args.offset + shown
    if end < matched or (scan.more and shown):
        text = f"showed matches {args.offset + 1}-{end} of {matched}" + ("+" if scan.more else "")
        return [cut_note(text, call_text("find_files", pattern=args.pattern, offset=end))]
    if not matched and not scan.more:
        return ["Hint: a pattern without '/' matches file names anywhere, e.g. '*.py' or 'main.*'."]
    return []


def _policy_note(ws: Workspace) -> str:
    """Say what the rules keep out of every listing (not per file: a count of matching secrets
    would itself tell that a secret exists under that name)."""
    kept_out = [label for label, on in ((".gitignore'd files", ws.settings.respect_gitignore),
                                        ("credential-like files", ws.settings.secrets_policy)) if on]
    return f"not searched: {' and '.join(kept_out)} (workspace rules)"


def _scan_notes(scan: FileScan) -> list[str]:
    notes: list[str] = []
    for reason, count in (("not_utf8", scan.not_utf8), ("unprintable", scan.unprintable)):
        if count:
            notes.append(f"while walking, hidden: {count} {HIDDEN_REASONS[reason]}")
    if scan.refused:
        notes.append(f"left out: {scan.refused} matching files refused by the workspace rules")
    if scan.more:
        notes.append(f"[cut: the walk stopped after {scan.seen} files (the walk_max_entries setting), so more "
                     "files may match than counted; narrow the pattern, e.g. 'src/**/*.py']")
    if scan.timed_out:
        notes.append("[cut: the listing ran out of time; matches so far are shown. Narrow the pattern, "
                     "e.g. 'src/**/*.py']")
    return notes


def _pattern_regex(pattern: str):
    if has_control_chars(pattern) or "\\" in pattern:
        raise PathRefusedError("the pattern may not contain control characters or backslashes")
    if pattern.startswith(("/", "~")) or ".." in pattern.split("/"):
        raise PathRefusedError("the pattern must be relative to the workspace (no '/', '~' or '..' at the start)")
    return glob_regex(pattern.strip("/"))


def _is_binary(ws: Workspace, entry: Entry) -> bool:
    try:
        return ws.sniff(entry.rel).binary
    except (PathRefusedError, ToolExecutionError):
        return False  # unreadable files stay listed; read_file will say why


def _entry_line(entry: Entry) -> str:
    if entry.kind == "dir":
        return entry.rel + "/"
    if entry.kind == "symlink":
        return f"{entry.rel}  ({entry.note})"
    return f"{entry.rel}  ({human_size(entry.size)})"


def _hidden_lines(listing: Listing, walking: bool = False) -> list[str]:
    notes: list[str] = []
    if listing.hidden.total:
        notes.append(("while walking, " if walking else "") + listing.hidden.describe())
    if listing.truncated:
        notes.append("[cut: the walk stopped at the walk_max_entries setting; list a sub-folder to see more]")
    return notes
