"""Measurements and the packaging smoke run, kept out of the product's modules.

`--smoke-question`: show the window, load the model, ask, print the answer and tool calls as JSON,
exit. `--timing`: print when the window showed and, after each run, the longest stall of the UI
thread (for the benchmark). Nothing here runs unless one of those options is given.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

SMOKE_LIMIT_MS = 15 * 60 * 1000


def seconds_since_process_start() -> float | None:
    """Seconds since this process was created (Linux: /proc, 10 ms resolution), else None."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
        return float(Path("/proc/uptime").read_text().split()[0]) - started
    except (OSError, ValueError, IndexError):
        return None


def emit_json(payload: dict) -> None:
    print(json.dumps(payload, ensure_ascii=False), flush=True)


def report_window_shown(started_at: float) -> None:
    since_start = seconds_since_process_start()
    emit_json({"event": "window_shown",
               "seconds_since_command": round(time.perf_counter() - started_at, 3),
               "seconds_since_process_start": None if since_start is None else round(since_start, 3),
               "wall_time": round(time.time(), 3)})


class StallMonitor(QObject):
    """Measures the longest gap between UI event-loop ticks (for the benchmark's --timing).

    A 10 ms timer fires on the UI thread; any gap well above 10 ms is time the UI thread was busy
    and the window could not repaint or react.
    """

    def __init__(self, parent: QObject | None = None, interval_ms: int = 10) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._last = time.perf_counter()
        self.longest_ms = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.longest_ms, self.ticks = 0.0, 0
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        self.longest_ms = max(self.longest_ms, (now - self._last) * 1000.0)
        self._last = now
        self.ticks += 1


class StopLatency(QObject):
    """Seconds from a stop request to the end of the run's worker thread (None until measured)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.seconds: float | None = None
        self._asked: float | None = None
        window.runs.stopRequested.connect(self._on_runs_stopRequested)
        window.runFinished.connect(self._on_window_runFinished)

    def _on_runs_stopRequested(self) -> None:
        self._asked = time.perf_counter()

    def _on_window_runFinished(self, _stop: object) -> None:
        if self._asked is not None:
            self.seconds, self._asked = time.perf_counter() - self._asked, None


def watch_runs(window: MainWindow, monitor: StallMonitor, timing: bool) -> None:
    window.send_button.clicked.connect(monitor.start)
    window.question.submitted.connect(monitor.start)
    window.runFinished.connect(monitor.stop)
    if timing:
        window.runFinished.connect(lambda _stop: emit_json({
            "event": "run_finished", "longest_ui_stall_ms": round(monitor.longest_ms, 1),
            "ui_ticks": monitor.ticks, "streamed_chunks": window.runs.streamed_chunks}))


class SmokeRun:
    """Drives one question through the real window and prints the result as JSON."""

    def __init__(self, window: MainWindow, question: str, monitor: StallMonitor | None) -> None:
        self.window, self.question, self.monitor = window, question, monitor

    def attach(self) -> None:
        self.window.modelLoaded.connect(self._on_window_modelLoaded)
        self.window.modelFailed.connect(self._on_window_modelFailed)
        self.window.runFinished.connect(self._on_window_runFinished)
        QTimer.singleShot(SMOKE_LIMIT_MS, lambda: self.exit({"error": "smoke run timed out"}, 3))

    def _on_window_modelLoaded(self, _name: str) -> None:
        self.window.question.setPlainText(self.question)
        if self.monitor is not None:
            self.monitor.start()
        if not self.window.runs.send():
            self.exit({"error": self.window.notice.text() or "could not ask"}, 2)

    def _on_window_modelFailed(self, message: str) -> None:
        self.exit({"error": message}, 1)

    def _on_window_runFinished(self, stop) -> None:
        from app.harness.events import ToolCallCompleted

        runs = self.window.runs
        answer = runs.last_answer
        self.exit({
            "answer": answer.text if answer else "",
            "citations": [str(c) for c in answer.citations] if answer else [],
            "support": answer.support.value if answer else "not_backed",
            "tool_calls": [{"name": c.name, "arguments": getattr(c, "arguments", None),
                            "ok": isinstance(c, ToolCallCompleted) and c.ok} for c in runs.calls],
            "stopped_reason": stop.reason if stop else "failed",
            "activity_rows": len(self.window.activity.rows()),
            "longest_ui_stall_ms": round(self.monitor.longest_ms, 1) if self.monitor else None,
        }, 0 if stop is not None else 1)

    def exit(self, payload: dict, code: int) -> None:
        emit_json(payload)
        self.window.close()
        QApplication.instance().exit(code)


def attach(window: MainWindow, smoke_question: str | None, timing: bool) -> None:
    """Wire the requested measurements and the smoke run to a shown window."""
    monitor = StallMonitor(window)
    watch_runs(window, monitor, timing)
    if smoke_question:
        SmokeRun(window, smoke_question, monitor).attach()
