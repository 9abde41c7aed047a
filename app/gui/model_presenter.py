"""Choosing and loading models: the first model at start (with the default as the fallback),
the picker's choices and "Add .gguf…", and discovery of models on disk once the session is idle.
Loads and discovery run on worker threads; the picker always shows the model in use."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.errors import BurrowError
from app.gui.controller import ControllerState, NoticeKind, SessionController
from app.gui.dialogs import Dialogs
from app.gui.model_picker import ModelPicker
from app.gui.server_models import short_name
from app.gui.status import NoticeBar, ProgressLine
from app.gui.workers import Background


class ModelPresenter(QObject):
    loaded = Signal(str)  # model name
    failed = Signal(str)  # message
    discovered = Signal(int)
    discovering = Signal()  # discovery of models on disk starts: servers are looked for too

    def __init__(self, controller: SessionController, picker: ModelPicker, notices: NoticeBar,
                 progress: ProgressLine, dialogs: Dialogs, background: Background,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller, self.picker, self.notices = controller, picker, notices
        self.progress, self.dialogs, self.background = progress, dialogs, background
        self._remember: str | None = None
        self._discovery_pending = False
        self._fallback_from: str | None = None  # a first model that failed; the default follows
        controller.state_listeners.append(self._on_controller_state)

    def start(self, requested: str | None) -> None:
        """After the window has painted: load the first model, then find other models on disk."""
        self._discovery_pending = True
        try:
            choice = self.controller.first_model(requested)
        except BurrowError as exc:  # not even the default model is there
            self.picker.set_state(f"No model: {exc}")
            self.dialogs.error("No model", str(exc))
            self._discover_when_idle()
            return
        self.notices.put(NoticeKind.MODEL, choice.notice)
        self._fallback_from = choice.path
        self.load(choice.path)

    def load(self, path: str, remember: bool = False) -> None:
        """Load in the background; `remember` makes it the model of the next start."""
        try:
            self.controller.begin_model_load()
        except BurrowError as exc:
            self.notices.put(NoticeKind.MODEL, f"{exc} (the model was not switched)")
            return
        self._remember = path if remember else None
        needs_details = self._ensure_listed(path)
        self.picker.set_state(f"Loading {short_name(path)}…")
        self.progress.begin(f"Loading the model {short_name(path)}")
        self.background.run(lambda: self.controller.describe_and_load(path, needs_details),
                            lambda result: self._on_loaded(path, result),
                            lambda message: self._on_failed(path, message))

    def request_file(self) -> None:
        path = self.dialogs.choose_model_file()
        if path:
            self.load(path, remember=True)

    def _ensure_listed(self, path: str) -> bool:
        """List `path` by its file name at once (reading the GGUF header is left to the loading
        thread); True when the entry still needs its details."""
        if self.picker.combo.findData(path) >= 0:
            self.picker.select(path)
            return False
        from app.llm.base import ModelInfo

        self.picker.add_model(ModelInfo(path=path, name=short_name(path),
                                        size_bytes=_file_size(path), source="user"))
        self.picker.select(path)
        return True

    def _on_loaded(self, path: str, result: tuple) -> None:
        info, model = result
        if info is not None:
            self.picker.add_model(info)  # replaces the file-name placeholder
        self._fallback_from = None
        self.controller.end_model_load(model, path)
        if self._remember:
            self._save_choice(self._remember)
        dialect = getattr(model, "dialect_name", "")
        self.picker.set_state(f"Ready: {model.name}" + (f" (dialect {dialect})" if dialect else ""))
        self.progress.end(f"Model {model.name} is ready.")
        self.loaded.emit(model.name)

    def _save_choice(self, path: str) -> None:
        try:
            self.controller.apply_settings(model_path=path)
        except BurrowError as exc:
            self.notices.put(NoticeKind.MODEL, f"The model is loaded but could not be remembered: {exc}")

    def _on_failed(self, path: str, message: str) -> None:
        self.controller.end_model_load(None)
        self._show_model_in_use(path)
        if self._fall_back_to_default(path, message):
            return
        still = getattr(self.controller.model, "name", None)
        self.picker.set_state(f"Load failed. Still using {still}." if still else "Load failed.")
        self.progress.end("The model could not be loaded.")
        self.dialogs.error("The model could not be loaded", message)
        self.failed.emit(message)

    def _show_model_in_use(self, failed: str) -> None:
        """The picker goes back to the loaded model; a file that never loaded leaves the list."""
        in_use = self.controller.model_path
        index = self.picker.combo.findData(failed)
        if index >= 0 and failed != in_use and _was_added_by_hand(self.picker, index):
            self.picker.combo.removeItem(index)
        if in_use:
            self.picker.select(in_use)

    def _fall_back_to_default(self, path: str, message: str) -> bool:
        """A first model that fails (a saved or --model file) gives way to the default model."""
        if self._fallback_from != path or self.controller.model is not None:
            return False
        self._fallback_from = None
        try:
            default = str(self.controller.default_model_path())
        except BurrowError:
            return False
        if default == path:
            return False
        self.notices.put(NoticeKind.MODEL, f"{short_name(path)} could not be loaded ({message}), "
                                           f"so the default model is used.")
        self.load(default)
        return True

    # discovery ---------------------------------------------------------------------------
    def _on_controller_state(self, state: ControllerState) -> None:
        if state is ControllerState.IDLE:
            self._discover_when_idle()

    def _discover_when_idle(self) -> None:
        """Start discovery once, when no load or run holds the UI's attention."""
        if not self._discovery_pending or self.controller.state is not ControllerState.IDLE:
            return
        self._discovery_pending = False
        self.background.run(self.controller.discover_models, self._on_models_found, lambda _m: None)
        self.discovering.emit()

    def _on_models_found(self, models: list) -> None:
        current = self.picker.current_path()
        for info in models:
            self.picker.add_model(info)
        if current:
            self.picker.select(current)
        self.discovered.emit(len(models))


def _was_added_by_hand(picker: ModelPicker, index: int) -> bool:
    return picker.combo.itemData(index, ModelPicker.SOURCE_ROLE) == "user"


def _file_size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0
