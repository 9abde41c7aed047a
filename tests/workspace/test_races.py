"""Symlink-swap races: a thread swaps a file, then a parent folder, between inside content and a
symlink to outside, while the main thread reads through the tools thousands of times.

RACE_ITERATIONS reads per test and strategy; the notes report the totals.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from app.settings import Settings

from .conftest import STRATEGIES, make_executor

pytestmark = pytest.mark.timeout(120)
RACE_ITERATIONS = 3000
SEARCH_EVERY = 50  # ripgrep is a process start: search on every 50th iteration


def _arena(tmp: Path, marker: str) -> tuple[Path, Path]:
    ws, outside = tmp / "ws", tmp / "outside"
    (ws / "race").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    for f in (outside / "target.txt", outside / "dir" / "target.txt"):
        f.write_text(f"{marker}\n")
    return ws, outside


def _swap_file(ws: Path, outside: Path) -> Callable[[], None]:
    def swap() -> None:
        os.symlink(outside / "target.txt", ws / "race" / ".evil")
        os.replace(ws / "race" / ".evil", ws / "race" / "target.txt")
        (ws / "race" / ".safe").write_text("safe inside\n")
        os.replace(ws / "race" / ".safe", ws / "race" / "target.txt")
    return swap


def _swap_parent(ws: Path, outside: Path) -> Callable[[], None]:
    real, parked = ws / "race", ws / "parked"
    (real / "target.txt").write_text("safe inside\n")

    def swap() -> None:
        os.rename(real, parked)
        os.symlink(outside / "dir", real)
        os.unlink(real)
        os.rename(parked, real)
    return swap


def _race(tmp: Path, strategy: str, make_swap) -> tuple[Counter[str], int, str]:
    marker = f"RACE-MARKER-{strategy}-{tmp.name}"
    ws, outside = _arena(tmp, marker)
    swap = make_swap(ws, outside)
    _, ex = make_executor(ws, Settings(), strategy)
    stop, started = threading.Event(), threading.Event()
    swaps = [0]

    def swapper() -> None:
        while not stop.is_set():
            swap()
            swaps[0] += 1
            started.set()

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    assert started.wait(10)
    outcomes: Counter[str] = Counter()
    leaks = 0
    try:
        for i in range(RACE_ITERATIONS):
            calls = [("read_file", '{"path": "race/target.txt"}'), ("list_dir", '{"path": "race"}')]
            if i % SEARCH_EVERY == 0:
                calls.append(("search_text", '{"pattern": "MARKER|safe", "path": "race"}'))
            for name, raw in calls:
                out = ex.run(str(i), name, raw)
                leaks += marker in out.content or str(tmp) in out.content
                outcomes[f"{name}:{'ok' if out.ok else 'refused'}"] += 1
    finally:
        stop.set()
        thread.join(10)
    assert swaps[0] > 0
    return outcomes, leaks, marker


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_file_swap_race_never_leaks(tmp_path: Path, strategy: str) -> None:
    outcomes, leaks, _ = _race(tmp_path, strategy, _swap_file)
    assert leaks == 0, outcomes
    assert sum(v for k, v in outcomes.items() if k.startswith("read_file")) == RACE_ITERATIONS


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parent_dir_swap_race_never_leaks(tmp_path: Path, strategy: str) -> None:
    outcomes, leaks, _ = _race(tmp_path, strategy, _swap_parent)
    assert leaks == 0, outcomes
    assert sum(v for k, v in outcomes.items() if k.startswith("read_file")) == RACE_ITERATIONS
