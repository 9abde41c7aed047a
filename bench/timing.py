"""Timing helpers: interleaved repetitions with medians, and child processes with their peak memory.

The machine is shared, so Burrow and its reference are always measured alternately in the same run
(A B A B ...): a burst of load from a neighbour then hits both sides rather than one.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(a: Callable[[], float], b: Callable[[], float], reps: int) -> tuple[list[float], list[float]]:
    """Run a and b alternately reps times each (swapping who goes first); return both samples."""
    xs: list[float] = []
    ys: list[float] = []
    for i in range(reps):
        if i % 2:
            ys.append(b())
            xs.append(a())
        else:
            xs.append(a())
            ys.append(b())
    return xs, ys


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


@dataclass(frozen=True)
class ChildRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_bytes: int  # ru_maxrss of this child alone (os.wait4), not of every child so far
    timed_out: bool = False

    def last_words(self, n: int = 3) -> str:
        tail = [ln for ln in self.stderr.strip().splitlines() if ln.strip()][-n:]
        return " / ".join(tail) or "no output"


def run_child(argv: Sequence[str], *, env: dict[str, str] | None = None, timeout: float = 300.0,
              cwd: Path = REPO_ROOT) -> ChildRun:
    """Run a command, capture its output, and read its own peak RSS from wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(argv), stdout=out, stderr=err, env=env, cwd=cwd)
        status, rusage, timed_out = _wait4(proc, timeout)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    return ChildRun(proc.returncode, text[0], text[1], seconds, rusage.ru_maxrss * 1024, timed_out)


def _wait4(proc: subprocess.Popen, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return status, rusage, False
        if time.monotonic() > deadline:
            proc.kill()
            _, status, rusage = os.wait4(proc.pid, 0)
            return status, rusage, True
        time.sleep(0.01)  # polling a child we started; no test waits on this


def python() -> str:
    return sys.executable


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env
