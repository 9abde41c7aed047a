"""Runs inside a child process: the longest UI-thread stall while Burrow's window answers a question.

    python -m bench.stall_probe WORKSPACE MODEL

Starts the real app (`python -m app gui --smoke-question ...`: the real window, the real worker
thread, the real model) and, once the event loop starts, adds a 5 ms heartbeat QTimer on the UI
thread. Every gap between beats longer than 5 ms is time the UI thread could not repaint or react.
Gaps are split by phase: the background model load, the whole run (question sent -> run finished)
and the streaming part of it (first streamed text -> run finished). Prints `bench-stall {json}`.
"""

from __future__ import annotations

import json
import sys
import time
from itertools import pairwise

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from bench.fixture import QUESTION
from bench.llama_env import install_if_asked

BEAT_MS = 5


class Heartbeat(QObject):
    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.beats: list[float] = [time.perf_counter()]
        self.chunks: list[int] = [0]  # streamed chunks seen at each beat
        self.marks: dict[str, float] = {}
        self.window = next((w for w in app.topLevelWidgets() if hasattr(w, "runFinished")), None)
        if self.window is not None:
            self.window.modelLoaded.connect(lambda _n: self.mark("run_start"))
            self.window.runFinished.connect(lambda _s: self.mark("run_end"))
        self.timer = QTimer(self)
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.timer.start()

    def mark(self, name: str) -> None:
        self.marks.setdefault(name, time.perf_counter())

    def _on_timer_timeout(self) -> None:
        self.beats.append(time.perf_counter())
        runs = getattr(self.window, "runs", None)
        self.chunks.append(getattr(runs, "streamed_chunks", 0))
        if runs is not None and getattr(runs, "streamed_chunks", 0) and "run_start" in self.marks:
            self.mark("stream_start")

    def longest_ms(self, start: str, end: str) -> float | None:
        lo, hi = self.marks.get(start), self.marks.get(end)
        if lo is None or hi is None:
            return None
        gaps = [b - a for a, b in pairwise(self.beats) if b >= lo and a <= hi]
        return round(max(gaps, default=0.0) * 1000.0, 1)

    def worst_gaps(self, n: int = 5) -> list[dict]:
        """The longest gaps in the run: seconds after the question, streamed chunks by then."""
        lo = self.marks.get("run_start", self.beats[0])
        gaps = [(b - a, a, c) for a, b, c in zip(self.beats, self.beats[1:], self.chunks[1:], strict=False)
                if a >= lo]
        return [{"ms": round(g * 1000, 1), "at_s": round(a - lo, 2), "chunks": c}
                for g, a, c in sorted(gaps, reverse=True)[:n]]

    def report(self) -> dict:
        self.marks.setdefault("run_end", time.perf_counter())
        runs = getattr(self.window, "runs", None)
        return {
            "longest_ms": self.longest_ms("run_start", "run_end"),
            "longest_streaming_ms": self.longest_ms("stream_start", "run_end"),
            "longest_during_model_load_ms": self.longest_ms("loop_start", "run_start"),
            "run_seconds": round(self.marks["run_end"] - self.marks.get("run_start", self.marks["run_end"]), 2),
            "streamed_chunks": getattr(runs, "streamed_chunks", 0),
            "beats": len(self.beats), "beat_ms": BEAT_MS, "worst_gaps": self.worst_gaps(),
        }


def main(argv: list[str]) -> int:
    workspace, model = argv[:2]
    install_if_asked()
    original = QApplication.exec
    probe: list[Heartbeat] = []

    def exec_with_heartbeat(*_args: object) -> int:
        beat = Heartbeat(QApplication.instance())
        beat.mark("loop_start")
        probe.append(beat)
        code = original()
        print("bench-stall " + json.dumps({**beat.report(), "app_exit": code}), flush=True)
        return code

    QApplication.exec = exec_with_heartbeat
    from app.cli.main import main as app_main

    return app_main(["gui", "--workspace", workspace, "--model", model, "--smoke-question", QUESTION])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
