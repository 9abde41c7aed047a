"""The main window: workspace, model and history on the left; conversation, activity and the
question box on the right. All work happens on worker threads; this class only wires views."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.errors import BurrowError
from app.gui import render
from app.gui.chat_view import ChatView
from app.gui.dialogs import Dialogs
from app.gui.history import HistoryPanel
from app.gui.model_picker import ModelPicker
from app.gui.runs import RunPresenter
from app.gui.server_models import ServerModels, short_name
from app.gui.session import SessionController
from app.gui.theme import apply_theme
from app.gui.widgets import ActivityPanel, DropZone, QuestionEdit
from app.gui.workers import BackgroundCall
from app.values import LineSpan

if TYPE_CHECKING:  # imported when first opened: not needed to paint the window
    from app.gui.settings_dialog import SettingsDialog
    from app.gui.viewer import FileViewer


class MainWindow(QMainWindow):
    modelLoaded = Signal(str)  # model name
    modelFailed = Signal(str)  # message
    modelsDiscovered = Signal(int)
    runFinished = Signal(object)  # the RunStopped event, or None when the run failed
    workspaceChanged = Signal(str)

    def __init__(self, controller: SessionController, dialogs: Dialogs | None = None,
                 initial_model: str | None = None, settings_later: bool = False) -> None:
        """`settings_later`: the caller calls adopt_settings() once the window has painted."""
        super().__init__()
        self.controller = controller
        self.dialogs = dialogs or Dialogs(self)
        self.dark = False
        self.viewer: FileViewer | None = None
        self._threads: set[BackgroundCall] = set()
        self._closing = False
        self._initial_model = initial_model
        self.loading_model = False
        self._remember_path: str | None = None
        self._discovery_pending = False  # set by start_background, cleared when discovery starts
        self.setWindowTitle("Burrow")
        self.setAccessibleName("Burrow")
        self.resize(1280, 720)
        self.setMinimumSize(900, 560)
        self._build()
        self.runs = RunPresenter(self)
        self._connect()
        self.refresh_recent()
        if not settings_later:
            self.adopt_settings()

    def prepare_in_background(self, then) -> None:
        """Import pydantic, read the settings and import the run history's module on a worker
        thread (0.1-0.3 s the UI thread would otherwise stall for), then call `then()` here."""
        def prepare() -> None:
            self.controller.settings  # noqa: B018 (loads them)
            import app.harness.records  # noqa: F401

        self._in_background(prepare, lambda _none: then(), lambda _msg: then())

    def adopt_settings(self) -> None:
        """Load the settings (pydantic) and say so if a broken file was set aside."""
        if self.controller.settings_notice:
            self.show_notice(self.controller.settings_notice)

    # layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.notice = QLabel("", self)
        self.notice.setAccessibleName("Notice")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        self.notice.setStyleSheet("background:#fdecea;color:#611a15;padding:6px;border-radius:4px")
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._build_side())
        splitter.addWidget(self._build_main())
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([330, 950])
        root = QWidget(self)
        layout = QVBoxLayout(root)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(root)

    def _build_side(self) -> QWidget:
        side = QWidget(self)
        side.setMinimumWidth(260)
        self.drop_zone = DropZone(side)
        self.browse_button = QPushButton("Browse…", side)
        self.browse_button.setAccessibleName("Browse for a workspace folder")
        self.recent = QComboBox(side)
        self.recent.setAccessibleName("Recent workspaces")
        self.recent.setPlaceholderText("Recent workspaces")
        ws_box = _group("Workspace", self.drop_zone, _row(self.browse_button, self.recent, 1))
        self.model_picker = ModelPicker(side)
        self.servers = ServerModels(self.model_picker, self.controller.discover_servers,
                                    self._in_background, side)
        self.history = HistoryPanel(side)
        self.settings_button = QPushButton("Settings…", side)
        self.settings_button.setAccessibleName("Settings")
        layout = QVBoxLayout(side)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(ws_box)
        layout.addWidget(_group("Model", self.model_picker, self.servers))
        layout.addWidget(_group("History", self.history), 1)
        layout.addWidget(self.settings_button)
        return side

    def _build_main(self) -> QWidget:
        main = QWidget(self)
        self.chat = ChatView(main)
        self.activity = ActivityPanel(main)
        self.activity_toggle = QToolButton(main)
        self.activity_toggle.setText("Tool activity")
        self.activity_toggle.setAccessibleName("Show or hide tool activity")
        self.activity_toggle.setCheckable(True)
        self.activity_toggle.setChecked(True)
        self.activity_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.activity_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.question = QuestionEdit(main)
        self.question.setMaximumHeight(90)
        self.send_button = QPushButton("Send", main)
        self.send_button.setAccessibleName("Send question")
        self.stop_button = QPushButton("Stop", main)
        self.stop_button.setAccessibleName("Stop answering")
        self.stop_button.setEnabled(False)
        self.status = QLabel("Drop a folder to begin.", main)
        self.status.setAccessibleName("Status")
        split = QSplitter(Qt.Orientation.Vertical, main)
        split.addWidget(self.chat)
        split.addWidget(_group_widget(self.activity_toggle, self.activity))
        split.setSizes([430, 200])
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        ask = QHBoxLayout()
        ask.addWidget(self.question, 1)
        ask.addLayout(buttons)
        layout = QVBoxLayout(main)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)
        layout.addLayout(ask)
        layout.addWidget(self.status)
        return main

    def _connect(self) -> None:
        self.drop_zone.folderDropped.connect(self.set_workspace)
        self.drop_zone.dropRefused.connect(self.show_notice)
        self.browse_button.clicked.connect(self._on_browse_button_clicked)
        self.recent.activated.connect(self._on_recent_activated)
        self.model_picker.modelChosen.connect(lambda path: self.load_model(path, remember=True))
        self.model_picker.addRequested.connect(self._on_model_picker_addRequested)
        self.settings_button.clicked.connect(self.open_settings)
        self.activity_toggle.toggled.connect(self._on_activity_toggle_toggled)
        self.chat.citationClicked.connect(self.open_citation)
        self.history.runChosen.connect(self.runs.show_record)
        self.question.submitted.connect(self.runs.send)
        self.send_button.clicked.connect(self.runs.send)
        self.stop_button.clicked.connect(self.runs.stop)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.runs.stop)

    # notices -----------------------------------------------------------------------------
    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    # workspace ---------------------------------------------------------------------------
    def set_workspace(self, folder: str) -> bool:
        if self.controller.running:
            self.show_notice("Stop the current answer before changing the workspace.")
            return False
        try:
            path = self.controller.set_workspace(folder)
        except BurrowError as exc:
            self.show_notice(str(exc))
            return False
        self.show_notice("")
        self.drop_zone.show_folder(f"<b>{path.name}</b><br><small>{path}</small>")
        self.refresh_recent()
        self.history.load(self.controller, path)
        self.set_status(f"Workspace: {path}")
        self.workspaceChanged.emit(str(path))
        return True

    def refresh_recent(self) -> None:
        self.recent.clear()
        for folder in self.controller.recent.load():
            self.recent.addItem(folder.name, str(folder))
            self.recent.setItemData(self.recent.count() - 1, str(folder), Qt.ItemDataRole.ToolTipRole)

    def _on_browse_button_clicked(self) -> None:
        folder = self.dialogs.choose_folder()
        if folder:
            self.set_workspace(folder)

    def _on_recent_activated(self, index: int) -> None:
        self.set_workspace(self.recent.itemData(index))

    # models ------------------------------------------------------------------------------
    def start_background(self) -> None:
        """After the window has painted: load the chosen model, then find other models on disk.

        The renderer warm-up runs beside the load (the first answer needs it, and the load spends
        most of its time in llama.cpp without the GIL); discovery waits until the model is loaded
        and no run is streaming, so neither competes with the UI thread when it matters.
        """
        self._discovery_pending = True
        self._in_background(render.warm_up, lambda _html: None, lambda _msg: None)
        first = self._initial_model or self.controller.settings.model_path
        try:
            first = first or str(self.controller.default_model_path())
        except BurrowError as exc:
            self.model_picker.set_state(f"No model: {exc}")
            self.dialogs.error("No model", str(exc))
            self._discover_when_idle()
            return
        self.load_model(first)

    def _discover_when_idle(self) -> None:
        """Start discovery once: now if no run holds the UI's attention, else after that run."""
        if not self._discovery_pending:
            return
        if self.controller.running:
            self.runFinished.connect(self._discover_after_run)
            return
        self._discovery_pending = False
        self._in_background(self.controller.discover_models, self._on_models_found, lambda msg: None)
        self.servers.refresh()

    def _discover_after_run(self, _stop: object) -> None:
        self.runFinished.disconnect(self._discover_after_run)
        self._discover_when_idle()

    def _on_models_found(self, models: list) -> None:
        current = self.model_picker.current_path()
        for info in models:
            self.model_picker.add_model(info)
        if current:
            self.model_picker.select(current)
        self.modelsDiscovered.emit(len(models))

    def load_model(self, path: str, remember: bool = False) -> None:
        """Load in the background; `remember` makes it the model of the next start."""
        if self.controller.running:
            self.show_notice("Stop the current answer before switching models.")
            return
        self._remember_path = path if remember else None
        needs_details = self._ensure_listed(path)
        self.loading_model = True
        self.model_picker.set_state(f"Loading {short_name(path)}…")
        self.runs.update_buttons()
        self._in_background(lambda: self.controller.describe_and_load(path, needs_details),
                            self._on_model_loaded, self._on_model_failed)

    def _ensure_listed(self, path: str) -> bool:
        """List `path` by its file name at once (reading the GGUF header is left to the loading
        thread); True when the entry still needs its details."""
        listed = self.model_picker.combo.findData(path) >= 0
        if not listed:
            from app.llm.base import ModelInfo

            self.model_picker.add_model(ModelInfo(path=path, name=short_name(path),
                                                  size_bytes=_file_size(path), source="user"))
        self.model_picker.select(path)
        return not listed

    def _on_model_loaded(self, loaded: tuple) -> None:
        info, model = loaded
        if info is not None:
            self.model_picker.add_model(info)  # replaces the file-name placeholder
        name = getattr(model, "name", "model")
        dialect = getattr(model, "dialect_name", "")
        self.loading_model = False
        if self._remember_path:
            try:
                self.controller.apply_settings(model_path=self._remember_path)
            except BurrowError as exc:
                self.show_notice(f"The model is loaded but could not be remembered: {exc}")
        self.model_picker.set_state(f"Ready: {name}" + (f" (dialect {dialect})" if dialect else ""))
        self.servers.show_model(model)
        self.runs.update_buttons()
        self.modelLoaded.emit(name)
        self._discover_when_idle()

    def _on_model_failed(self, message: str) -> None:
        self.loading_model = False
        still = getattr(self.controller.model, "name", None)
        self.model_picker.set_state(f"Load failed. Still using {still}." if still else "Load failed.")
        self.runs.update_buttons()
        self.dialogs.error("The model could not be loaded", message)
        self.modelFailed.emit(message)
        self._discover_when_idle()

    def _on_model_picker_addRequested(self) -> None:
        path = self.dialogs.choose_model_file()
        if path:
            self.load_model(path, remember=True)

    def _in_background(self, call, on_ok, on_fail) -> None:
        if self._closing:  # e.g. discovery queued by the last run's end while the window closes
            return
        worker = BackgroundCall(call, self)
        worker.succeeded.connect(on_ok)
        worker.failed.connect(on_fail)
        worker.finished.connect(lambda w=worker: self._threads.discard(w))
        self._threads.add(worker)
        worker.start()

    def _on_activity_toggle_toggled(self, shown: bool) -> None:
        self.activity.setVisible(shown)
        self.activity_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    # settings, citations -----------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        from app.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.controller.settings, self.controller.apply_settings, self)
        dialog.accepted.connect(self._on_settings_saved)
        dialog.open()
        return dialog

    def _on_settings_saved(self) -> None:
        self.dark = self.chat.dark = apply_theme(QApplication.instance(), self.controller.settings.theme)
        self.chat.render_now()
        self.set_status("Settings saved; context size and threads apply to the next model load.")

    def open_citation(self, span: LineSpan) -> FileViewer | None:
        try:
            text = self.controller.read_file(span.path)
        except BurrowError as exc:
            self.show_notice(f"Cannot show {span.path}: {exc}")
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
        self._closing = True
        self.runs.shutdown()
        for worker in list(self._threads):
            worker.wait()  # loads and discovery are bounded


def _file_size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _row(*widgets_and_stretch) -> QHBoxLayout:
    row = QHBoxLayout()
    widgets = [w for w in widgets_and_stretch if isinstance(w, QWidget)]
    for w in widgets:
        row.addWidget(w)
    row.setStretch(len(widgets) - 1, 1)
    return row


def _group(title: str, *children) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    for child in children:
        if isinstance(child, QWidget):
            layout.addWidget(child)
        else:
            layout.addLayout(child)
    return box


def _group_widget(header: QWidget, body: QWidget) -> QWidget:
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(header)
    layout.addWidget(body, 1)
    return holder
