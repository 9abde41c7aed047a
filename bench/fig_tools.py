"""Figures 4 and 5: search_text and find_files on a large real tree, against raw ripgrep."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.timing import interleaved, median, timed

SEARCH = ("search", "search_text on the stdlib tree", "s", Target(1.5))
FIND = ("find", "find_files on the stdlib tree", "s", Target(1.5))

# Rare enough that no result limit cuts either side short, so both do the whole walk.
SEARCH_PATTERN = r"class HTTPConnection\b"
FIND_GLOB = "**/test_http*.py"


def measure(ctx: BenchContext) -> list[FigureResult]:
    executor = burrow_executor(ctx.tree)
    return [_search_figure(ctx, executor), _find_figure(ctx, executor)]


def burrow_executor(root: Path):
    """Burrow's real executor on a workspace rooted at `root`, with default settings."""
    from app.harness.calls import ToolExecutor
    from app.settings import Settings
    from app.workspace import Workspace

    settings = Settings()
    return ToolExecutor(Workspace(root, settings), settings)


def _rg(ctx: BenchContext, *args: str) -> Callable[[], float]:
    def run() -> float:
        return timed(lambda: subprocess.run([ctx.rg, *args], cwd=ctx.tree, capture_output=True, check=False))

    return run


def _tool(executor, name: str, arguments: dict) -> tuple[Callable[[], float], Callable[[], object]]:
    raw = json.dumps(arguments)

    def call():
        return executor.run("bench", name, raw)

    return (lambda: timed(call)), call


def _compare(ctx: BenchContext, spec: tuple, tool: Callable[[], float], ref: Callable[[], float],
             ref_title: str, outcome: object, ref_hits: int) -> FigureResult:
    tool(), ref()  # warm the page cache for both before anything counts
    ours, theirs = interleaved(tool, ref, ctx.reps)
    key, title, unit, target = spec
    details = {
        "burrow_seconds": ours, "reference_seconds": theirs, "reference_command": ref_title,
        "burrow_ok": getattr(outcome, "ok", None), "burrow_result_chars": len(getattr(outcome, "content", "")),
        "reference_hits": ref_hits, "burrow_result_head": getattr(outcome, "content", "")[:300],
        "burrow_cut_short": "[cut" in getattr(outcome, "content", ""),
    }
    return FigureResult(key, title, unit, target, median(ours), median(theirs), ref_title, details=details)


def _search_figure(ctx: BenchContext, executor) -> FigureResult:
    tool, call = _tool(executor, "search_text", {"pattern": SEARCH_PATTERN})
    args = ["--line-number", "--no-heading", SEARCH_PATTERN, "."]
    hits = _count_lines(ctx, args)
    return _compare(ctx, SEARCH, tool, _rg(ctx, *args), "rg -n PATTERN", call(), hits)


def _find_figure(ctx: BenchContext, executor) -> FigureResult:
    tool, call = _tool(executor, "find_files", {"pattern": FIND_GLOB})
    args = ["--files", "-g", FIND_GLOB.removeprefix("**/"), "."]
    hits = _count_lines(ctx, args)
    return _compare(ctx, FIND, tool, _rg(ctx, *args), "rg --files -g GLOB", call(), hits)


def _count_lines(ctx: BenchContext, args: list[str]) -> int:
    out = subprocess.run([ctx.rg, *args], cwd=ctx.tree, capture_output=True, text=True, check=False)
    return len(out.stdout.splitlines())
