"""Worker threads: the UI thread never loads a model, generates or runs a tool.

Each RunEvent from the loop crosses to the UI thread as a queued signal; the loop itself knows
nothing of Qt.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QThread, QTimer, Signal

from app.errors import BurrowError
from app.harness.events import (
    AnswerCompleted,
    ModelTextStreamed,
    RunStarted,
    RunStopped,
    ToolCallCompleted,
    ToolCallProposed,
    ToolCallRefused,
)


class RunWorker(QThread):
    """Runs one question through the loop and re-emits every event as a signal."""

    eventReceived = Signal(object)  # every RunEvent, in order
    runStarted = Signal(object)
    textStreamed = Signal(str)
    toolCallProposed = Signal(object)
    toolCallFinished = Signal(object)  # ToolCallCompleted or ToolCallRefused
    answerCompleted = Signal(object)
    runStopped = Signal(object)
    runFailed = Signal(str)  # our own error: the message is fit for the user

    def __init__(self, events: Callable[[], Iterator[object]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._events = events

    def run(self) -> None:
        try:
            for event in self._events():
                self._emit(event)
        except BurrowError as exc:
            self.runFailed.emit(str(exc))
        except Exception as exc:  # a bug must not take the window down with it
            self.runFailed.emit(f"The run failed unexpectedly: {type(exc).__name__}: {exc}")

    def _emit(self, event: object) -> None:
        self.eventReceived.emit(event)
        if isinstance(event, ModelTextStreamed):
            self.textStreamed.emit(event.text)
        elif isinstance(event, ToolCallProposed):
            self.toolCallProposed.emit(event)
        elif isinstance(event, (ToolCallCompleted, ToolCallRefused)):
            self.toolCallFinished.emit(event)
        elif isinstance(event, AnswerCompleted):
            self.answerCompleted.emit(event)
        elif isinstance(event, RunStopped):
            self.runStopped.emit(event)
        elif isinstance(event, RunStarted):
            self.runStarted.emit(event)


class BackgroundCall(QThread):
    """Runs one blocking call (model load, model discovery) off the UI thread."""

    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, call: Callable[[], object], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._call = call

    def run(self) -> None:
        try:
            self.succeeded.emit(self._call())
        except BurrowError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # e.g. a llama.cpp error we have no name for
            self.failed.emit(f"{type(exc).__name__}: {exc}")


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
