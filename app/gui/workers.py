"""Worker threads: the UI thread never loads a model, generates or runs a tool.

Each RunEvent from the loop crosses to the UI thread as a queued signal; the loop itself knows
nothing of Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, QThread, Signal

from app.errors import BurrowError


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
    indexProgress = Signal(object)  # IndexProgress or IndexReady, before the question runs

    def __init__(self, events: Callable[[], Iterator[object]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._events = events

    def run(self) -> None:
        # imported here, on the worker thread: the window's first paint does not need the harness
        from app.harness import events

        self._ev = events
        try:
            for event in self._events():
                self._emit(event)
        except BurrowError as exc:
            self.runFailed.emit(str(exc))
        except Exception as exc:  # a bug must not take the window down with it
            self.runFailed.emit(f"The run failed unexpectedly: {type(exc).__name__}: {exc}")

    def _emit(self, event: object) -> None:
        ev = self._ev
        self.eventReceived.emit(event)
        if isinstance(event, ev.ModelTextStreamed):
            self.textStreamed.emit(event.text)
        elif isinstance(event, ev.ToolCallProposed):
            self.toolCallProposed.emit(event)
        elif isinstance(event, (ev.ToolCallCompleted, ev.ToolCallRefused)):
            self.toolCallFinished.emit(event)
        elif isinstance(event, ev.AnswerCompleted):
            self.answerCompleted.emit(event)
        elif isinstance(event, ev.RunStopped):
            self.runStopped.emit(event)
        elif isinstance(event, ev.RunStarted):
            self.runStarted.emit(event)
        elif isinstance(event, (ev.IndexProgress, ev.IndexReady)):
            self.indexProgress.emit(event)


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


class Background(QObject):
    """The window's blocking calls (model load, discovery, settings), each on its own thread; all
    are waited for at shutdown, because a QThread must not outlive its window."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._threads: set[BackgroundCall] = set()
        self.closing = False

    def run(self, call: Callable[[], object], on_ok: Callable[[object], None],
            on_fail: Callable[[str], None]) -> None:
        if self.closing:  # e.g. discovery queued by the last run's end while the window closes
            return
        worker = BackgroundCall(call, self)
        worker.succeeded.connect(on_ok)
        worker.failed.connect(on_fail)
        worker.finished.connect(lambda w=worker: self._threads.discard(w))
        self._threads.add(worker)
        worker.start()

    def close(self) -> None:
        self.closing = True
        for worker in list(self._threads):
            worker.wait()  # loads and discovery are bounded
