"""Runs figures so that one broken or missing part never stops the others."""

from __future__ import annotations

import json
import signal
import sys
import time
import traceback
from collections.abc import Callable

from bench.context import BenchContext
from bench.report import FigureResult, from_json, not_measured
from bench.timing import child_env, run_child

Spec = tuple  # (key, title, unit, Target), declared next to each figure
RESULT_PREFIX = "bench-result "


def why_not(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError):
        return f"{exc.name} is not there yet (the part it measures has not landed)"
    if isinstance(exc, ImportError):
        return f"the part it measures is incomplete ({exc})"
    return f"{type(exc).__name__}: {exc}"


def guarded(spec: Spec, fn: Callable[[BenchContext], FigureResult], ctx: BenchContext) -> FigureResult:
    start = time.perf_counter()
    try:
        result = fn(ctx)
    except Exception as exc:  # a benchmark reports, it never crashes
        result = not_measured(*spec, why=why_not(exc))
        result.details["traceback"] = traceback.format_exc(limit=6)
    result.details["bench_seconds"] = round(time.perf_counter() - start, 2)
    return result


def guarded_group(specs: list[Spec], fn: Callable[[BenchContext], list[FigureResult]],
                  ctx: BenchContext) -> list[FigureResult]:
    """A group shares expensive setup (a loaded model, an executor); if setup fails, all miss."""
    try:
        return fn(ctx)
    except Exception as exc:
        reason = why_not(exc)
        tb = traceback.format_exc(limit=6)
        results = [not_measured(*spec, why=reason) for spec in specs]
        for r in results:
            r.details["traceback"] = tb
        return results


def run_group_child(name: str, specs: list[Spec], ctx: BenchContext, timeout_s: float,
                    extra_env: dict[str, str]) -> list[FigureResult]:
    """Measure a group in `python -m bench.child`; a crash or hang becomes 'not measured'."""
    argv = [sys.executable, "-m", "bench.child", name, json.dumps(ctx.to_json())]
    run = run_child(argv, env=child_env(**extra_env), timeout=timeout_s)
    if run.timed_out:
        why = f"the {name} group ran past {timeout_s:.0f} s (last: {run.last_words(1)})"
        return [not_measured(*spec, why=why) for spec in specs]
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith(RESULT_PREFIX)]
    if not lines:
        return [not_measured(*spec, why=_death(run.returncode, run.last_words())) for spec in specs]
    targets = {spec[0]: spec[3] for spec in specs}
    return [from_json(d, targets[d["key"]]) for d in json.loads(lines[-1][len(RESULT_PREFIX):])]


def _death(code: int, last_words: str) -> str:
    how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
    return f"the measuring process died ({how}): {last_words}"


def progress(text: str) -> None:
    """A line on stderr: the parent shows the last one when a group runs out of time."""
    print(f"[bench]   {text}", file=sys.stderr, flush=True)
