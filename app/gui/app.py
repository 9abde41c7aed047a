"""Start the desktop app: show the window first, then find and load the model in the background.

Also the packaging smoke run (`--smoke-question`): show the window, load the model, ask, print the
answer and tool calls as JSON, exit. `--timing` prints when the window showed and, after each run,
the longest stall of the UI thread, for the benchmark.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app.gui.main_window import MainWindow
from app.gui.session import SessionController, peek_theme
from app.gui.theme import apply_theme
from app.gui.workers import StallMonitor
from app.harness.events import ToolCallCompleted
from app.paths import app_paths, project_root

SMOKE_LIMIT_MS = 15 * 60 * 1000


@dataclass(frozen=True)
class LaunchOptions:
    workspace: str | None = None
    model: str | None = None
    smoke_question: str | None = None
    timing: bool = False
    started_at: float = 0.0  # perf_counter when the command started


def seconds_since_process_start() -> float | None:
    """Seconds since this process was created (Linux: /proc, 10 ms resolution), else None."""
    try:
        import os

        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime
        return float(Path("/proc/uptime").read_text().split()[0]) - started
    except (OSError, ValueError, IndexError):
        return None


def emit_json(payload: dict) -> None:
    print(json.dumps(payload, ensure_ascii=False), flush=True)


def launch(options: LaunchOptions) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("Burrow")
    app.setWindowIcon(QIcon(str(project_root() / "app" / "gui" / "resources" / "burrow.svg")))
    controller = SessionController(app_paths())
    window = MainWindow(controller, initial_model=options.model, settings_later=True)
    window.dark = window.chat.dark = apply_theme(app, peek_theme(controller.paths.settings_file))
    window.show()
    monitor = StallMonitor(window) if options.timing or options.smoke_question else None
    AfterFirstPaint(window, lambda: _on_window_shown(window, options)).arm()
    if monitor is not None:
        _watch_runs(window, monitor, options)
    if options.smoke_question:
        SmokeRun(window, options.smoke_question, monitor).attach()
    code = app.exec()
    window.shutdown()  # whatever the last events started must end before Python tears Qt down
    return code


class AfterFirstPaint(QObject):
    """Calls `then` on the event-loop turn after the window's first Expose (the window is painted).

    A 0 ms timer armed right after show() fires before the platform exposes the window, so any
    work it starts would delay the first paint. A fallback timer covers a window that is never
    exposed (started minimized, or on another virtual desktop).
    """

    FALLBACK_MS = 1500

    def __init__(self, window, then) -> None:
        super().__init__(window)
        self._window, self._then, self._done = window, then, False

    def arm(self) -> None:
        handle = self._window.windowHandle()
        if handle is None or handle.isExposed():
            QTimer.singleShot(0, self._fire)
            return
        handle.installEventFilter(self)
        QTimer.singleShot(self.FALLBACK_MS, self._fire)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Expose and obj.isExposed():
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self._fire)  # after the paint this Expose triggers
        return False

    def _fire(self) -> None:
        if not self._done:
            self._done = True
            self._then()


def _on_window_shown(window: MainWindow, options: LaunchOptions) -> None:
    """First event-loop turn after the first paint: the window is on screen; now the slow parts."""
    if options.timing:
        emit_json({"event": "window_shown", "seconds_since_command": round(
            time.perf_counter() - options.started_at, 3), "seconds_since_process_start":
            _round(seconds_since_process_start()), "wall_time": round(time.time(), 3)})
    window.prepare_in_background(lambda: _adopt_settings_and_workspace(window, options))


def _adopt_settings_and_workspace(window: MainWindow, options: LaunchOptions) -> None:
    """What waited for the first paint: the settings (pydantic), the theme they name, the
    workspace (it writes the recent list and reads the history); then the model load."""
    window.adopt_settings()
    theme = window.controller.settings.theme
    if theme != peek_theme(window.controller.paths.settings_file):  # e.g. a broken file was reset
        window.dark = window.chat.dark = apply_theme(QApplication.instance(), theme)
    if options.workspace and not window.set_workspace(options.workspace) and options.smoke_question:
        emit_json({"error": window.notice.text()})
        QApplication.instance().exit(2)
        return
    window.start_background()


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _watch_runs(window: MainWindow, monitor: StallMonitor, options: LaunchOptions) -> None:
    window.send_button.clicked.connect(monitor.start)
    window.question.submitted.connect(monitor.start)
    window.runFinished.connect(monitor.stop)
    if options.timing:
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
        QTimer.singleShot(SMOKE_LIMIT_MS, lambda: self._exit({"error": "smoke run timed out"}, 3))

    def _on_window_modelLoaded(self, _name: str) -> None:
        self.window.question.setPlainText(self.question)
        if self.monitor is not None:
            self.monitor.start()
        if not self.window.runs.send():
            self._exit({"error": self.window.notice.text() or "could not ask"}, 2)

    def _on_window_modelFailed(self, message: str) -> None:
        self._exit({"error": message}, 1)

    def _on_window_runFinished(self, stop) -> None:
        runs = self.window.runs
        answer = runs.last_answer
        self._exit({
            "answer": answer.text if answer else "",
            "citations": [str(c) for c in answer.citations] if answer else [],
            "tool_calls": [{"name": c.name, "arguments": getattr(c, "arguments", None),
                            "ok": isinstance(c, ToolCallCompleted) and c.ok} for c in runs.calls],
            "stopped_reason": stop.reason if stop else "failed",
            "activity_rows": len(self.window.activity.rows()),
            "longest_ui_stall_ms": round(self.monitor.longest_ms, 1) if self.monitor else None,
        }, 0 if stop is not None else 1)

    def _exit(self, payload: dict, code: int) -> None:
        emit_json(payload)
        self.window.close()
        QApplication.instance().exit(code)
