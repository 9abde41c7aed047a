"""Start the desktop app: show the window first, then read the settings, open the workspace and
load the model in the background. Measurements and the packaging smoke run live in
app.gui.diagnostics and are imported only when asked for."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from app.gui.controller import SessionController
from app.gui.main_window import MainWindow
from app.gui.prefs import peek_theme
from app.gui.theme import FUSION_ARGS, apply_theme, is_dark
from app.paths import app_paths


@dataclass(frozen=True)
class LaunchOptions:
    workspace: str | None = None
    model: str | None = None
    smoke_question: str | None = None
    timing: bool = False
    started_at: float = 0.0  # perf_counter when the command started


def launch(options: LaunchOptions) -> int:
    existing = QApplication.instance()
    app = existing or QApplication([sys.argv[0], *FUSION_ARGS])
    window = open_window(app, options, fusion=existing is None)
    code = app.exec()
    window.shutdown()  # whatever the last events started must end before Python tears Qt down
    return code


def open_window(app: QApplication, options: LaunchOptions, fusion: bool = False) -> MainWindow:
    """Show the window in the theme's colours, empty: its views are built on the event-loop turn
    after it first paints (see app.gui.layout for what that saves), and their presenters and the
    slow parts come on the turn after the views first paint. `fusion`: the app was created with
    FUSION_ARGS."""
    app.setApplicationName("Burrow")
    controller = SessionController(app_paths())
    window = MainWindow(controller, initial_model=options.model, settings_later=True, build_later=True)
    window.set_dark(apply_theme(app, peek_theme(controller.paths.settings_file), first_paint=fusion))
    window.show()
    AfterPaint(window, lambda: _on_window_shown(window, options)).arm()
    return window


class AfterPaint(QObject):
    """Calls `then` on the event-loop turn after the window's first paint, or with arm_views,
    after its central widget's first paint (the views are on screen).

    A 0 ms timer armed right after show() fires before the platform exposes the window, so any
    work it starts would delay the first paint. The widget's own Paint event says when it has
    painted (the platform window's Expose says so too, but watching it wraps a QWindow in Python:
    its type and enums, ~1 ms before the first paint). A fallback timer covers a window that is
    never painted (started minimized, or on another virtual desktop).
    """

    FALLBACK_MS = 1500

    def __init__(self, window, then) -> None:
        super().__init__(window)
        self._window, self._then, self._done = window, then, False

    def arm(self) -> None:
        self._watch(self._window)

    def arm_views(self) -> None:
        self._watch(self._window.centralWidget())

    def _watch(self, watched: QWidget | None) -> None:
        if watched is None or not watched.isVisible():
            QTimer.singleShot(0, self._fire)
            return
        watched.installEventFilter(self)
        QTimer.singleShot(self.FALLBACK_MS, self._fire)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self._fire)  # after the paint this event belongs to
        return False

    def _fire(self) -> None:
        if not self._done:
            self._done = True
            self._then()


def _on_window_shown(window: MainWindow, options: LaunchOptions) -> None:
    """First event-loop turn after the first paint: the window is on screen; now its views."""
    if options.timing:
        from app.gui.diagnostics import report_window_shown

        report_window_shown(options.started_at)
    window.build()
    AfterPaint(window, lambda: _on_views_shown(window, options)).arm_views()


def _on_views_shown(window: MainWindow, options: LaunchOptions) -> None:
    """The turn after the views first painted: their presenters, a check of the theme's guess,
    then the slow parts."""
    window.wire()
    _confirm_theme(window)
    if options.timing or options.smoke_question:
        from app.gui import diagnostics

        diagnostics.attach(window, options.smoke_question, options.timing)
    window.finish_startup()
    window.prepare_in_background(lambda: _adopt_settings_and_workspace(window, options))


def _confirm_theme(window: MainWindow) -> None:
    """The first paints guessed "system" from the desktop's palette; ask Qt now (rarely differs).
    Asking creates the Qt namespace's enums (~35 ms), which is why it waits for the views' paint."""
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
        from app.gui.controller import NoticeKind
        from app.gui.diagnostics import emit_json

        emit_json({"error": window.notice.notice(NoticeKind.WORKSPACE)})
        QApplication.instance().exit(2)
        return
    window.start_background()
