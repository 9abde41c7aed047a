"""Figures 6 and 7: the desktop app's responsiveness, each in a child process, offscreen."""

from __future__ import annotations

import json
import subprocess
import time

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import guarded, guarded_group
from bench.timing import child_env, interleaved, median, python, run_child

STALL = ("ui_stall", "longest UI stall while streaming", "ms", Target(50.0, subject="measured"))
LAUNCH = ("window_shown", "window shown after launch", "s", Target(1.5))
READY = ("window_ready", "window with its contents after launch", "s", Target(1.4))
FRAME_BUDGET_MS = 16.0
# A launch is ~0.2 s and its ratio to an empty window swung from 1.22 to 2.0 between runs of five
# pairs on this VM (2026-12-02); eleven interleaved pairs cost ~5 s more and steady the median.
LAUNCH_PAIRS = 11


def _env(ctx: BenchContext) -> dict[str, str]:
    env = child_env(QT_QPA_PLATFORM="offscreen", BURROW_HOME=str(ctx.burrow_home))
    # As on a user's machine (and in the installed bundle, which ships bytecode), the first start
    # writes Burrow's .pyc files and later starts read them; PySide6's own were written by pip.
    # Without this an environment that sets PYTHONDONTWRITEBYTECODE compiles every Burrow module
    # from source at every start (~45 ms here), a cost no user pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _shown_after(ctx: BenchContext, args: list[str]) -> tuple[float, float]:
    """Seconds from just before the child starts to its first painted window, and to the first
    paint of that window with its contents (bench.gui_probe)."""
    start = time.monotonic()
    run = run_child([python(), "-m", "bench.gui_probe", *args], env=_env(ctx), timeout=120)
    seen = dict(ln.split() for ln in run.stdout.splitlines() if ln.startswith(("shown ", "ready ")))
    if set(seen) != {"shown", "ready"}:
        tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"no window was shown with its contents (exit {run.returncode}): {tail}")
    return float(seen["shown"]) - start, float(seen["ready"]) - start


def measure_launch(ctx: BenchContext) -> list[FigureResult]:
    app_args = ["app", "--", "--workspace", str(ctx.fixture), "--model", str(ctx.model_path)]
    burrow = lambda: _shown_after(ctx, app_args)  # noqa: E731
    empty = lambda: _shown_after(ctx, ["empty"])  # noqa: E731
    burrow(), empty()  # first starts pay for cold .pyc and shared-library pages
    ours, theirs = interleaved(burrow, empty, max(ctx.reps, LAUNCH_PAIRS))
    details = {"burrow_seconds": ours, "empty_window_seconds": theirs,
               "command": "python -m bench.gui_probe app -- --workspace FIXTURE --model MODEL"}
    return [FigureResult(key, title, unit, target, median([o[index] for o in ours]),
                         median([t[index] for t in theirs]), "empty PySide6 window", details=details)
            for index, (key, title, unit, target) in enumerate((LAUNCH, READY))]


def _one_stall(ctx: BenchContext) -> dict:
    """One question through the window, with an idle window's heartbeat beside it as control."""
    control = subprocess.Popen([python(), "-m", "bench.gui_probe", "idle", "600"], env=_env(ctx),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        run = run_child([python(), "-m", "bench.stall_probe", str(ctx.fixture), str(ctx.model_path)],
                        env=_env(ctx), timeout=300)
    finally:
        control.kill()
        idle = [ln for ln in control.communicate()[0].splitlines() if ln.startswith("idle ")]
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("bench-stall ")]
    if not lines:
        raise RuntimeError(f"stall probe failed (exit {run.returncode}): {run.last_words(1)}")
    data = json.loads(lines[-1].removeprefix("bench-stall "))
    if data.get("longest_ms") is None:
        raise RuntimeError(f"the window never ran the question: {run.stdout.strip()[-300:]}")
    data["idle_window_longest_ms"] = float(idle[-1].split()[1]) if idle else None
    return data


def measure_stall(ctx: BenchContext) -> FigureResult:
    runs = [_one_stall(ctx) for _ in range(max(1, min(ctx.reps, 3)))]
    key, title, unit, target = STALL
    idle = [r["idle_window_longest_ms"] for r in runs if r.get("idle_window_longest_ms") is not None]
    note = "" if all(r["streamed_chunks"] for r in runs) else "a run streamed no visible text; "
    if idle:
        note += f"an idle window beside it stalled up to {max(idle):.0f} ms (machine noise)"
    details = {"runs": runs, "worst_ms": max(r["longest_ms"] for r in runs), "idle_window_ms": idle,
               "command": "python -m bench.stall_probe FIXTURE MODEL (app gui --smoke-question, offscreen)"}
    return FigureResult(key, title, unit, target, median([r["longest_ms"] for r in runs]),
                        FRAME_BUDGET_MS, "16 ms frame budget", note=note, details=details)


def measure(ctx: BenchContext) -> list[FigureResult]:
    return [guarded(STALL, measure_stall, ctx), *guarded_group([LAUNCH, READY], measure_launch, ctx)]

