"""Start the desktop app: show the window first, then read the settings, open the workspace and
load the model in the background. Measurements and the packaging smoke run live in
app.gui.diagnostics and are imported only when asked for."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from app.gui.main_window import MainWindow
from app.gui.prefs import peek_theme
from app.gui.session import SessionController
from app.gui.theme import apply_theme, is_dark
from app.paths import app_paths


@dataclass(frozen=True)
class LaunchOptions:
    workspace: str | None = None
    model: str | None = None
    smoke_question: str | None = None
    timing: bool = False
    started_at: float = 0.0  # perf_counter when the command started


def launch(options: LaunchOptions) -> int:
    app = QApplication.instance() or QApplication([sys.argv[0]])
    window = open_window(app, options)
    code = app.exec()
    window.shutdown()  # whatever the last events started must end before Python tears Qt down
    return code


def open_window(app: QApplication, options: LaunchOptions) -> MainWindow:
    """Show the window in the theme's colours, empty: its views are built on the event-loop turn
    after it first paints (see app.gui.layout for what that saves), then the slow parts start."""
    app.setApplicationName("Burrow")
    controller = SessionController(app_paths())
    window = MainWindow(controller, initial_model=options.model, settings_later=True, build_later=True)
    window.set_dark(apply_theme(app, peek_theme(controller.paths.settings_file), first_paint=True))
    window.show()
    AfterFirstPaint(window, lambda: _on_window_shown(window, options)).arm()
    return window


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
        from app.gui.diagnostics import report_window_shown

        report_window_shown(options.started_at)
    _confirm_theme(window)
    window.build()
    if options.timing or options.smoke_question:
        from app.gui import diagnostics

        diagnostics.attach(window, options.smoke_question, options.timing)
    window.finish_startup()
    window.prepare_in_background(lambda: _adopt_settings_and_workspace(window, options))


def _confirm_theme(window: MainWindow) -> None:
    """The first paint guessed "system" from the desktop's palette; ask Qt now (rarely differs)."""
    theme = peek_theme(window.controller.paths.settings_file)
    if is_dark(theme) != window.dark:
        window.set_dark(apply_theme(QApplication.instance(), theme))


def _adopt_settings_and_workspace(window: MainWindow, options: LaunchOptions) -> None:
    """What waited for the first paint: the settings (pydantic), the theme they name, the
    workspace (it writes the recent list and reads the history); then the model load."""
    window.adopt_settings()
    theme = window.controller.settings.theme
    if theme != peek_theme(window.controller.paths.settings_file):  # e.g. a broken file was reset
        window.set_dark(apply_theme(QApplication.instance(), theme))
    if options.workspace and not window.set_workspace(options.workspace) and options.smoke_question:
        from app.gui.diagnostics import emit_json
        from app.gui.session import NoticeKind

        emit_json({"error": window.notice.notice(NoticeKind.WORKSPACE)})
        QApplication.instance().exit(2)
        return
    window.start_background()
