"""`python -m app index`: build or refresh a workspace's code index, with progress on stderr.

    python -m app index --workspace DIR [--json] [--rebuild]

Prints files, chunks and seconds, and what was skipped by reason (unreadable, not UTF-8, ignored,
binary, too big), naming the folders left out whole; one JSON object with --json. Exit 0, or 2 on a
usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.index.values import IndexStats
    from app.settings import Settings
    from app.workspace import Workspace

USAGE_ERROR = 2
_PROGRESS_EVERY_S = 0.2  # redraw the progress line at most this often


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", required=True, metavar="DIR", help="the folder to index")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument(
        "--rebuild", action="store_true", help="forget the index and build it again"
    )


def run(args: argparse.Namespace) -> int:
    from app.errors import WorkspaceError
    from app.paths import app_paths
    from app.settings import load_settings
    from app.workspace import Workspace

    settings = load_settings(app_paths().settings_file)
    try:
        ws = Workspace(Path(args.workspace), settings)
    except WorkspaceError as exc:
        print(f"python -m app index: {exc}", file=sys.stderr)
        return USAGE_ERROR
    with ws:
        stats, where = _index(ws, settings, rebuild=args.rebuild)
    _print_report(stats, where, as_json=args.json)
    return 0


def _index(ws: Workspace, settings: Settings, *, rebuild: bool) -> tuple[IndexStats, str]:
    """Build or refresh the index with a progress line; returns its stats and where it is stored."""
    from app.index import CodeIndex

    index = CodeIndex.open(ws, settings)
    progress = ProgressLine()
    stats = (index.rebuild if rebuild else index.refresh)(progress, WaitNote())
    progress.finish()
    where = str(index.database) if index.database else "(in memory: the data dir is inside the workspace)"
    index.close()
    return stats, where


def _print_report(stats: IndexStats, where: str, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(_report(stats, where)))
        return
    print(
        f"files {stats.files}, chunks {stats.chunks}, seconds {stats.seconds:.2f} "
        f"({stats.changed} changed, {stats.removed} removed)"
    )
    if stats.skipped:
        print(stats.describe_skipped())
    if stats.truncated:
        print("note: the walk stopped at the walk_max_entries setting; some files are not indexed")


def _report(stats: IndexStats, where: str) -> dict[str, object]:
    return {
        "files": stats.files,
        "chunks": stats.chunks,
        "seconds": round(stats.seconds, 3),
        "changed": stats.changed,
        "removed": stats.removed,
        "rebuilt": stats.rebuilt,
        "truncated": stats.truncated,
        "skipped": dict(stats.skipped),
        "skipped_folders": [{"path": f.rel, "reason": f.reason} for f in stats.skipped_folders],
        "database": where,
    }


class WaitNote:
    """`waiting for another Burrow process that is indexing this folder (120/400 files)` on
    stderr, each time that process's figures change."""

    def __init__(self) -> None:
        self._last: tuple[int, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        from app.index.values import describe_wait

        if (done, total) != self._last:
            self._last = (done, total)
            print(describe_wait(done, total), file=sys.stderr, flush=True)


class ProgressLine:
    """`indexing 1200/5000 files` on stderr, redrawn in place at most every _PROGRESS_EVERY_S."""

    def __init__(self) -> None:
        self._shown = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done != total and now - self._shown < _PROGRESS_EVERY_S:
            return
        self._shown = now
        self._drawn = True
        end = "\r" if sys.stderr.isatty() else "\n"
        print(f"indexing {done}/{total} files", end=end, file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self._drawn and sys.stderr.isatty():
            print(file=sys.stderr)
