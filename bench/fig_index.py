"""Figures for the code index on a real tree of >= 5,000 files (the Django sdist, fetched once).

- full build (`python -m app index --rebuild` in a child, for its peak memory) vs one rg pass
  over the same tree (report only: the index reads, parses and stores what rg only scans);
- refresh after touching one file vs the full build (target <= 0.02);
- one search_code call through the real executor vs rg searching the same words (target <= 0.2).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import progress
from bench.timing import child_env, interleaved, median, python, run_child, timed

BUILD = ("index_build", "code index full build (Django sdist)", "s", Target(None))
REFRESH = ("index_refresh", "index refresh after touching one file", "s", Target(0.02))
SEARCH = ("index_search", "search_code query (Django sdist)", "s", Target(0.2))

DJANGO = "Django==5.1.4"
DJANGO_ARCHIVE = "Django-5.1.4.tar.gz"
DJANGO_SHA256 = "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a"
CACHE = Path.home() / ".cache" / "burrow-bench"
QUERIES = (
    "which exception is raised when get() finds no object",
    "default value of DATA_UPLOAD_MAX_MEMORY_SIZE",
    "how are CSRF tokens rotated after login",
    "where is the template variable resolution done",
    "QuerySet.select_related",
)
TOUCHED = "django/db/models/query.py"


def django_tree() -> Path:
    """The unpacked sdist in ~/.cache/burrow-bench: fetched with pip once, sha256 checked."""
    root = CACHE / DJANGO_ARCHIVE.removesuffix(".tar.gz")
    archive = CACHE / DJANGO_ARCHIVE
    if root.is_dir():
        return root
    if not archive.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-binary",
                ":all:",
                "--no-deps",
                "-q",
                "-d",
                str(CACHE),
                DJANGO,
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != DJANGO_SHA256:
        raise RuntimeError(f"{archive} has sha256 {digest}, expected {DJANGO_SHA256}")
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return root


def measure(ctx: BenchContext) -> list[FigureResult]:
    tree = django_tree()
    home = ctx.scratch / "index-home"
    build = _build_figure(ctx, tree, home)
    os.environ["BURROW_HOME"] = str(
        home
    )  # the in-process index below must find the child's database
    return [build, _refresh_figure(ctx, tree, build.measured), _search_figure(ctx, tree)]


def _rg_pass(ctx: BenchContext, tree: Path, *args: str) -> float:
    return timed(
        lambda: subprocess.run(
            [ctx.rg, "--no-messages", *args, "."], cwd=tree, capture_output=True, check=False
        )
    )


def _build_figure(ctx: BenchContext, tree: Path, home: Path) -> FigureResult:
    progress("index: full build of the Django tree")
    argv = [python(), "-m", "app", "index", "--workspace", str(tree), "--rebuild", "--json"]
    run = run_child(argv, env=child_env(BURROW_HOME=str(home)), timeout=400)
    if run.returncode != 0:
        raise RuntimeError(f"index exited {run.returncode}: {run.last_words()}")
    report = json.loads(run.stdout)
    _rg_pass(ctx, tree, "-c", "zqxjv_no_such_word")  # warm the page cache as the build did
    rg = [_rg_pass(ctx, tree, "-c", "zqxjv_no_such_word") for _ in range(max(3, ctx.reps))]
    details = {
        **report,
        "peak_rss_mb": round(run.peak_rss_bytes / 1e6, 1),
        "child_seconds": round(run.seconds, 2),
        "reference_seconds": rg,
        "file_count": sum(1 for p in tree.rglob("*") if p.is_file()),
    }
    return FigureResult(
        *BUILD[:4],
        report["seconds"],
        median(rg),
        "one rg pass over the tree",
        note=f"peak memory {details['peak_rss_mb']} MB",
        details=details,
    )


def _refresh_figure(ctx: BenchContext, tree: Path, full_build: float) -> FigureResult:
    from app.index import CodeIndex
    from app.settings import Settings
    from app.workspace import Workspace

    progress("index: refresh after touching one file")
    settings = Settings()
    seconds: list[float] = []
    with Workspace(tree, settings) as ws:
        index = CodeIndex.open(ws, settings)
        for rep in range(ctx.reps):
            path = tree / TOUCHED
            os.utime(
                path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000 * (rep + 1))
            )
            stats = index.refresh()
            seconds.append(stats.seconds)
            changed_last = stats.changed
        index.close()
    details = {"refresh_seconds": seconds, "changed_files_last": changed_last, "touched": TOUCHED}
    return FigureResult(*REFRESH[:4], median(seconds), full_build, "full build", details=details)


def _search_figure(ctx: BenchContext, tree: Path) -> FigureResult:
    from bench.fig_tools import burrow_executor

    progress("index: search_code against rg")
    executor = burrow_executor(tree)
    executor.run(
        "warm", "search_code", json.dumps({"query": QUERIES[0]})
    )  # opens and refreshes once
    ours: list[float] = []
    theirs: list[float] = []
    for query in QUERIES:
        words = _rg_words(query)

        def tool(q: str = query) -> float:
            return timed(lambda: executor.run("bench", "search_code", json.dumps({"query": q})))

        def ref(w: list[str] = words) -> float:
            return _rg_pass(ctx, tree, "-i", "-n", *[a for word in w for a in ("-e", word)])

        tool(), ref()
        xs, ys = interleaved(tool, ref, ctx.reps)
        ours.append(median(xs))
        theirs.append(median(ys))
    details = {"queries": list(QUERIES), "burrow_seconds": ours, "reference_seconds": theirs}
    return FigureResult(
        *SEARCH[:4],
        median(ours),
        median(theirs),
        "rg -i -n -e WORD ... (same words)",
        details=details,
    )


def _rg_words(query: str) -> list[str]:
    from app.index.terms import STOP_WORDS

    words = [w.strip("?.,()`'\"") for w in query.split()]
    return [w for w in words if w and w.lower() not in STOP_WORDS]
