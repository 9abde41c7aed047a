"""The main window: workspace, model and history on the left; conversation, activity and the
question box on the right. All work happens on worker threads; this class only wires views (laid
out by app.gui.layout). What the user may do at any moment is the controller's state
(app.gui.controller)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from app.errors import BurrowError
from app.gui.controller import ControllerState, NoticeKind, SessionController
from app.gui.workers import Background

if TYPE_CHECKING:  # the views load in build(), after the first paint when the app launches
    from PySide6.QtWidgets import QComboBox, QPushButton, QToolButton

    from app.gui.chat_view import ChatView
    from app.gui.dialogs import Dialogs
    from app.gui.history import HistoryPanel
    from app.gui.model_picker import ModelPicker
    from app.gui.model_presenter import ModelPresenter
    from app.gui.runs import RunPresenter
    from app.gui.server_models import ServerModels
    from app.gui.settings_dialog import SettingsDialog
    from app.gui.status import NoticeBar, ProgressLine
    from app.gui.viewer import FileViewer
    from app.gui.widgets import ActivityPanel, DropZone, QuestionEdit
    from app.values import LineSpan


RECENT, RECENT_TIP = "Recent workspaces", "Reopen a workspace used before"
NO_RECENT, NO_RECENT_TIP = "No recent folders yet", "Folders you open are listed here"


class MainWindow(QMainWindow):
    modelLoaded = Signal(str)  # model name
    modelFailed = Signal(str)  # message
    modelsDiscovered = Signal(int)
    runFinished = Signal(object)  # the RunStopped event, or None when the run failed
    workspaceChanged = Signal(str)
    viewsBuilt = Signal()

    # the views, created by build() (app.gui.layout)
    notice: NoticeBar
    status: ProgressLine
    drop_zone: DropZone
    recent: QComboBox
    model_picker: ModelPicker
    servers: ServerModels
    history: HistoryPanel
    chat: ChatView
    activity: ActivityPanel
    activity_toggle: QToolButton
    question: QuestionEdit
    browse_button: QPushButton
    settings_button: QPushButton
    send_button: QPushButton
    stop_button: QPushButton
    new_chat_button: QPushButton
    clear_button: QPushButton
    dialogs: Dialogs
    runs: RunPresenter
    models: ModelPresenter

    def __init__(self, controller: SessionController, dialogs: Dialogs | None = None,
                 initial_model: str | None = None, settings_later: bool = False,
                 build_later: bool = False) -> None:
        """`settings_later`: the caller calls adopt_settings() once the window has painted.
        `build_later`: the window paints empty (in the theme's colours) and the caller calls
        build() on the next event-loop turn, then wire() once the views have painted; until then
        it has no views, then views that do not act yet."""
        super().__init__()
        self.controller = controller
        self.dark = False
        self.built = False
        self.viewer: FileViewer | None = None
        self.background = Background(self)
        self._initial_model = initial_model
        self._given_dialogs = dialogs
        self._settings_later = settings_later
        self._wire_later = build_later
        self._wired = False
        self.setWindowTitle("Burrow")
        self.setAccessibleName("Burrow")
        self.resize(1280, 720)
        self.setMinimumSize(900, 560)
        if not build_later:
            self.build()

    def build(self) -> None:
        """Create the views (once), and unless wire() comes later, their presenters."""
        if self.built:
            return
        from app.gui import layout

        layout.build(self)
        self.refresh_recent()
        self.update_buttons()
        self.built = True
        if not self._wire_later:
            self.wire()
        if not self._settings_later:
            self.adopt_settings()
        self.viewsBuilt.emit()

    def wire(self) -> None:
        """Give the views their presenters, connect them and add the keyboard shortcuts (once).
        Nothing the views paint needs it, so the launch does it on the turn after they first
        paint: importing and building the presenters costs ~3 ms, before a user could click."""
        if self._wired:
            return
        from app.gui.dialogs import Dialogs
        from app.gui.model_presenter import ModelPresenter
        from app.gui.runs import RunPresenter, RunViews

        self._wired = True
        self.dialogs = self._given_dialogs or Dialogs(self)
        self.runs = RunPresenter(self.controller, RunViews(self.chat, self.activity, self.question,
                                                           self.notice, self.status), self)
        self.models = ModelPresenter(self.controller, self.model_picker, self.notice, self.status,
                                     self.dialogs, self.background, self)
        self._connect()
        self._add_shortcuts()

    def prepare_in_background(self, then) -> None:
        """Import pydantic, read the settings and import the run history's module on a worker
        thread (0.1-0.3 s the UI thread would otherwise stall for), then call `then()` here."""
        def prepare() -> None:
            self.controller.settings  # noqa: B018 (loads them)
            import app.harness.records  # noqa: F401

        self.background.run(prepare, lambda _none: then(), lambda _msg: then())

    def adopt_settings(self) -> None:
        """Load the settings (pydantic) and say so if a broken file was repaired."""
        self.notice.put(NoticeKind.SETTINGS, self.controller.settings_notice)

    def finish_startup(self) -> None:
        """What the first paints do not need: the window icon (an SVG parse)."""
        from PySide6.QtGui import QIcon

        from app.paths import project_root

        icon = project_root() / "app" / "gui" / "resources" / "burrow.svg"
        QApplication.instance().setWindowIcon(QIcon(str(icon)))

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        if self.built:
            self.chat.dark = dark

    def _add_shortcuts(self) -> None:
        """Esc, Ctrl+N, Ctrl+L (wire() adds them once). Kept out of the first paints:
        QKeySequence's enums cost ~1.5 ms."""
        from PySide6.QtGui import QKeySequence, QShortcut

        QShortcut(QKeySequence("Esc"), self, activated=self.runs.stop)
        QShortcut(QKeySequence("Ctrl+N"), self, activated=self.runs.new_chat)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.runs.clear_view)

    def _connect(self) -> None:
        self.drop_zone.folderDropped.connect(self.set_workspace)
        self.drop_zone.dropRefused.connect(lambda text: self.notice.put(NoticeKind.WORKSPACE, text))
        self.browse_button.clicked.connect(self._on_browse_button_clicked)
        self.recent.activated.connect(self._on_recent_activated)
        self.model_picker.modelChosen.connect(lambda path: self.load_model(path, remember=True))
        self.model_picker.addRequested.connect(self.models.request_file)
        self.settings_button.clicked.connect(self.open_settings)
        self.activity_toggle.toggled.connect(self._on_activity_toggle_toggled)
        self.chat.citationClicked.connect(self.open_citation)
        self.chat.answerCopied.connect(lambda _t: self.status.end("Answer copied to the clipboard."))
        self.history.runChosen.connect(self.runs.show_chat)
        self.question.submitted.connect(self.runs.send)
        self.send_button.clicked.connect(self.runs.send)
        self.stop_button.clicked.connect(self.runs.stop)
        self.new_chat_button.clicked.connect(self.runs.new_chat)
        self.clear_button.clicked.connect(self.runs.clear_view)
        self.runs.runFinished.connect(self._on_runs_runFinished)
        self.models.loaded.connect(lambda _name: self.servers.show_model(self.controller.model))
        self.models.loaded.connect(self.modelLoaded)
        self.models.discovering.connect(self.servers.refresh)
        self.models.failed.connect(self.modelFailed)
        self.models.discovered.connect(self.modelsDiscovered)
        self.controller.state_listeners.append(lambda _state: self.update_buttons())

    def update_buttons(self) -> None:
        """Enable what the controller's state allows."""
        c = self.controller
        self.send_button.setEnabled(c.can_send)
        self.stop_button.setEnabled(c.state is ControllerState.RUNNING)
        self.new_chat_button.setEnabled(not c.running)
        self.clear_button.setEnabled(not c.running)
        self.model_picker.set_busy(not c.can_change_model)
        for widget in (self.drop_zone, self.browse_button, self.recent):
            widget.setEnabled(c.can_change_workspace)

    # notices -----------------------------------------------------------------------------
    def set_status(self, text: str) -> None:
        self.status.end(text)

    # workspace ---------------------------------------------------------------------------
    def set_workspace(self, folder: str) -> bool:
        try:
            path = self.controller.set_workspace(folder)
        except BurrowError as exc:
            self.notice.put(NoticeKind.WORKSPACE, str(exc))
            return False
        self.notice.put(NoticeKind.WORKSPACE, "")
        self.drop_zone.show_folder(f"<b>{path.name}</b><br><small>{path}</small>")
        self.refresh_recent()
        self.reload_history()
        if self.controller.chat is None:
            self.chat.show_turns([])
        self.set_status(f"Workspace: {path}")
        self.workspaceChanged.emit(str(path))
        return True

    def reload_history(self) -> None:
        """List the workspace's chats; say so when corrupt records had to be set aside."""
        if self.controller.workspace is None:
            return
        try:
            loaded = self.controller.list_runs(self.controller.workspace)
        except (BurrowError, OSError) as exc:
            self.notice.put(NoticeKind.HISTORY, f"The history could not be read: {exc}")
            return
        self.history.show_runs(loaded.runs)
        self.notice.put(NoticeKind.HISTORY, "" if not loaded.set_aside else (
            f"{loaded.set_aside} saved question(s) in the history could not be read and were "
            f"set aside (renamed to *.json.corrupt in {self.controller.paths.runs_dir})."))

    def refresh_recent(self) -> None:
        from app.gui.qt_values import TOOLTIP_ROLE

        self.recent.clear()
        for folder in self.controller.recent.load():
            self.recent.addItem(folder.name, str(folder))
            self.recent.setItemData(self.recent.count() - 1, str(folder), TOOLTIP_ROLE)
        # an empty list says so: a bare grey "Recent workspaces" looked like a disabled control
        self.recent.setPlaceholderText(RECENT if self.recent.count() else NO_RECENT)
        self.recent.setToolTip(RECENT_TIP if self.recent.count() else NO_RECENT_TIP)

    def _on_browse_button_clicked(self) -> None:
        folder = self.dialogs.choose_folder()
        if folder:
            self.set_workspace(folder)

    def _on_recent_activated(self, index: int) -> None:
        self.set_workspace(self.recent.itemData(index))

    def _on_runs_runFinished(self, stop: object) -> None:
        self.reload_history()
        self.runFinished.emit(stop)

    # models ------------------------------------------------------------------------------
    def start_background(self) -> None:
        """After the window has painted: warm the renderer up and import what a question runs
        beside the first model load (the load spends most of its time in llama.cpp without the
        GIL), then discovery."""
        from app.gui import render
        from app.gui.controller import warm_question_modules

        def warm_up() -> None:
            render.warm_up()
            warm_question_modules()

        self.background.run(warm_up, lambda _none: None, lambda _msg: None)
        self.models.start(self._initial_model)

    def load_model(self, path: str, remember: bool = False) -> None:
        self.models.load(path, remember)

    def _on_activity_toggle_toggled(self, shown: bool) -> None:
        from app.gui.layout import set_arrow

        self.activity.setVisible(shown)
        set_arrow(self.activity_toggle, shown)

    # settings, citations -----------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        from app.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.controller.settings, self.controller.apply_settings, self)
        dialog.accepted.connect(self._on_settings_saved)
        dialog.open()
        return dialog

    def _on_settings_saved(self) -> None:
        from app.gui.theme import apply_theme

        self.set_dark(apply_theme(QApplication.instance(), self.controller.settings.theme))
        self.chat.render_now()
        self.set_status("Settings saved; context size and threads apply to the next model load.")

    def open_citation(self, span: LineSpan) -> FileViewer | None:
        try:
            text = self.controller.read_file(span.path)
        except BurrowError as exc:
            self.notice.put(NoticeKind.RUN, f"Cannot show {span.path}: {exc}")
            return None
        if self.viewer is None:
            from app.gui.viewer import FileViewer

            self.viewer = FileViewer(self, self.dark)
        self.viewer.show()  # first, so the viewer has its size when it scrolls to the span
        self.viewer.show_span(span, text)
        self.viewer.raise_()
        return self.viewer

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop the run, start nothing new, wait for every worker: a QThread must not outlive
        its window (Qt aborts the process when one does)."""
        self.background.closing = True
        if self.built:  # closed before its views were built: no run can have started
            self.runs.shutdown()
        self.background.close()
        self.controller.close()  # after the workers: none still uses its Session

