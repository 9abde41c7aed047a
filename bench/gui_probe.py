"""Runs inside a child process: reports when the first window is exposed, then exits.

    python -m bench.gui_probe empty            an empty PySide6 window, the reference
    python -m bench.gui_probe app -- ARGS      Burrow's own `python -m app gui ARGS`
    python -m bench.gui_probe idle SECONDS     a heartbeat in an idle window (the noise floor)

Both are started the same way, so the difference is what Burrow does before its window shows. The
probe wraps QApplication.exec to install an event filter on each top-level window just before the
event loop starts (both windows are shown by then); a window's paint starts with the window itself,
so its own Paint events say when it paints. Not an application-wide filter: that one hands every
event of every object to Python, and converting the first objects of Qt's private classes (a text
view's QWidgetTextControl, the QGestureManager of scroll areas) makes PySide6 load types and create
their enums, ~75 ms that a user's Burrow never spends (a QTextBrowser took 84 ms to create under
such a filter, 8.6 ms without). It prints `shown <T>` at the first paint of a visible window (the
moment a user sees it) and `ready <T>` at the first paint of a window that has its contents:
Burrow's window first paints empty, in the theme's colours, and builds its views on the next
event-loop turn (MainWindow.built); an empty PySide6 window is ready when shown. It prints `shown
<CLOCK_MONOTONIC seconds>` (system-wide on Linux, so the parent can subtract its own start time) and
leaves at once with os._exit, without waiting for the model load the window started.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget


class _FirstPaint(QObject):
    shown = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.Paint or not obj.isVisible():
            return False
        now = time.monotonic()
        if not self.shown:
            self.shown = True
            _write(f"shown {now:.6f}")
        if _has_contents(obj):
            _write(f"ready {now:.6f}")
            os._exit(0)
        return False


def _has_contents(window: QWidget) -> bool:
    """Burrow's MainWindow says whether its views are built; any other window is what it shows."""
    return bool(getattr(window, "built", True))


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


original_exec = QApplication.exec


def _wrap_exec() -> None:
    original = original_exec

    def exec_with_probe(*_args: object) -> int:
        app = QApplication.instance()
        probe = _FirstPaint(app)
        for window in app.topLevelWidgets():
            window.installEventFilter(probe)
        return original()

    QApplication.exec = exec_with_probe


def _empty_window() -> int:
    app = QApplication(sys.argv[:1])
    window = QWidget()
    window.setWindowTitle("empty")
    window.resize(1280, 720)
    window.show()
    return app.exec()


def _idle_heartbeat(seconds: float) -> int:
    """The noise floor: the same 5 ms heartbeat in an idle window; prints `idle {longest ms}`
    every second, so whoever stops it reads the last line."""
    from PySide6.QtCore import QTimer

    app = QApplication(sys.argv[:1])
    window = QWidget()
    window.show()
    state = {"last": time.perf_counter(), "longest": 0.0}

    def beat() -> None:
        now = time.perf_counter()
        state["longest"] = max(state["longest"], now - state["last"])
        state["last"] = now

    timer, report = QTimer(app), QTimer(app)
    timer.setInterval(5)
    timer.timeout.connect(beat)
    report.setInterval(1000)
    report.timeout.connect(lambda: print(f"idle {state['longest'] * 1000:.1f}", flush=True))
    timer.start()
    report.start()
    QTimer.singleShot(int(seconds * 1000), app.quit)
    return original_exec()


def main(argv: list[str]) -> int:
    if argv[:1] == ["idle"]:
        return _idle_heartbeat(float(argv[1]))
    # No llama.cpp workaround here: the probe leaves at the first expose, before any model runs,
    # and importing llama_cpp early would add its import time to both sides.
    _wrap_exec()
    if argv[:1] == ["empty"]:
        return _empty_window()
    if argv[:1] == ["app"]:
        from app.cli.main import main as app_main

        rest = argv[2:] if argv[1:2] == ["--"] else argv[1:]
        return app_main(["gui", *rest])
    sys.stderr.write("usage: python -m bench.gui_probe empty | app -- ARGS\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
