"""The desktop session without Qt: workspace, settings, the model, the chat and at most one run.

The window is a thin view over this controller, so every rule a user meets (which drops are
refused, where settings live, one run at a time, what may be done while a model loads) is testable
without a display. One state (ControllerState) decides what the user may do; the window redraws
its buttons from it whenever it changes. Heavy modules (the loop, the tools, llama_cpp) are
imported inside the methods that need them, so the window can show before any of them load.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import BurrowError, ModelLoadError, SettingsError, WorkspaceError
from app.gui.prefs import RecentWorkspaces, settings_notice
from app.paths import AppPaths

if TYPE_CHECKING:  # pydantic and the harness load on first use, after the window shows
    from app.harness.events import AnswerCompleted, RunEvent
    from app.harness.records import ChatSoFar, RunRecord, RunSummary
    from app.harness.session import Session
    from app.llm.base import ChatModel, ModelInfo
    from app.llm.server_backend import ServerModelRef
    from app.settings import Settings


class ControllerState(str, Enum):
    """What the session is doing; it alone decides which commands the window offers."""

    IDLE = "idle"
    LOADING_MODEL = "loading model"
    RUNNING = "running"
    STOPPING = "stopping"


class NoticeKind(str, Enum):
    """Where a notice comes from: each kind is replaced or cleared on its own, so a workspace
    change never hides what was said about the settings file. (Here rather than beside the
    notice bar in app.gui.status: the window needs the kinds before it paints, the bar after.)"""

    SETTINGS = "settings"
    MODEL = "model"
    WORKSPACE = "workspace"
    HISTORY = "history"
    RUN = "run"


BUSY_MESSAGES = {  # why a command is refused in each busy state
    ControllerState.LOADING_MODEL: "The model is still loading; ask again when it is ready.",
    ControllerState.RUNNING: "A question is being answered; stop it first (Esc).",
    ControllerState.STOPPING: "The answer is stopping; try again in a moment.",
}


def workspace_from_drop(local_paths: Sequence[str | None]) -> Path:
    """The one folder a drop names, or WorkspaceError saying why the drop is refused.

    A None entry stands for a URL that is not a local file (e.g. a web link).
    """
    if not local_paths:
        raise WorkspaceError("Nothing to use here: drop one folder from the file manager.")
    if len(local_paths) > 1:
        raise WorkspaceError(f"Drop one folder at a time ({len(local_paths)} items were dropped).")
    return check_workspace(local_paths[0])


def check_workspace(raw: str | None) -> Path:
    """Resolve a folder the user chose, refusing files, missing paths and non-local links."""
    from app.workspace import check_folder

    if raw is None:
        raise WorkspaceError("Only folders on this computer can be used as a workspace.")
    return check_folder(raw)


@dataclass(frozen=True)
class ModelChoice:
    path: str
    notice: str = ""  # why this is not the model the user chose (e.g. the saved file is gone)


@dataclass(frozen=True)
class HistoryLoad:
    runs: list[RunSummary]
    set_aside: int = 0  # corrupt records moved out of the way while listing


ModelLoader = Callable[[Path, "Settings"], "ChatModel"]


def warm_question_modules() -> None:
    """Import what the first question and the model discovery run (the harness, the tools, the
    server client) on a worker thread beside the first model load, which spends most of its time in
    llama.cpp without the GIL. Imported when the question starts instead, by its worker and the
    discovery's at once, they kept the UI thread from the GIL for 20-90 ms (`make bench`'s ui_stall
    on the slower 2-core machine of 2026-12-06, gaps 0.02-0.06 s after the model loaded)."""
    import app.harness.session  # noqa: F401
    import app.llm.server_discovery  # noqa: F401


def default_model_loader(path: Path, settings: Settings) -> ChatModel:
    """The real llama-cpp backend, imported only when a model is loaded."""
    from app.llm.llama_backend import load_model

    return load_model(path, settings)


def _server_ref(key: str) -> ServerModelRef | None:
    """The inference-server model a picker key names; None for a file (without importing the
    server backend, so a file model at start costs nothing more)."""
    if not key.startswith("server:"):
        return None
    from app.llm.server_backend import parse_model_key

    return parse_model_key(key)


class SessionController:
    """What one window works on: a workspace, settings, a loaded model, a chat and one run."""

    def __init__(self, paths: AppPaths, settings: Settings | None = None,
                 model_loader: ModelLoader = default_model_loader,
                 models_home: Path | None = None) -> None:
        self.paths = paths.ensure()
        self._settings = settings
        self._settings_notice = ""
        self._settings_lock = threading.Lock()
        self.recent = RecentWorkspaces(paths.recent_file)
        self.workspace: Path | None = None
        self.model: ChatModel | None = None
        self.model_path: str | None = None  # the file the loaded model came from
        self.chat: ChatSoFar | None = None  # the conversation the next question continues
        self._model_loader = model_loader
        self._models_home = models_home  # where other apps' models are looked for (default ~)
        self._state = ControllerState.IDLE
        self._cancel: threading.Event | None = None
        self._session: Session | None = None  # for the workspace, model and settings in _session_key
        self._session_key: tuple[object, ...] = ()
        self.state_listeners: list[Callable[[ControllerState], None]] = []

    # state ---------------------------------------------------------------------------------
    @property
    def state(self) -> ControllerState:
        return self._state

    def _set_state(self, state: ControllerState) -> None:
        self._state = state
        for listener in list(self.state_listeners):
            listener(state)

    @property
    def running(self) -> bool:
        """A run holds the slot (answering or stopping)."""
        return self._state in (ControllerState.RUNNING, ControllerState.STOPPING)

    @property
    def can_send(self) -> bool:
        return self._state is ControllerState.IDLE and self.model is not None

    @property
    def can_change_model(self) -> bool:
        return self._state is ControllerState.IDLE

    @property
    def can_change_workspace(self) -> bool:
        return not self.running

    def refusal(self) -> str:
        """Why a command that needs an idle session is refused now ("" when idle)."""
        return BUSY_MESSAGES.get(self._state, "")

    # workspace -----------------------------------------------------------------------------
    def set_workspace(self, raw: str | Path) -> Path:
        if not self.can_change_workspace:
            raise BurrowError("Stop the current answer before changing the workspace.")
        folder = check_workspace(str(raw))
        if folder != self.workspace:
            self.chat = None  # a chat belongs to its workspace
            self.close()
        self.workspace = folder
        self.recent.add(folder)
        return folder

    # settings ------------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """Loaded on first use, so the window can paint before pydantic is imported."""
        with self._settings_lock:  # the launch loads them on a worker thread
            if self._settings is None:
                from app.settings import read_settings

                loaded = read_settings(self.paths.settings_file)
                self._settings, self._settings_notice = loaded.settings, settings_notice(loaded)
            return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value

    @property
    def settings_notice(self) -> str:
        """Non-empty when a broken settings file was repaired (loads the settings)."""
        self.settings  # noqa: B018 (the load sets the notice)
        return self._settings_notice

    def apply_settings(self, **changes: object) -> Settings:
        """Validate, save and adopt changes; SettingsError names the refused value."""
        from app.settings import save_settings, update_settings

        new = update_settings(self.settings, **changes)
        try:
            save_settings(new, self.paths.settings_file)
        except OSError as exc:
            raise SettingsError(f"could not save settings: {exc.strerror or exc}") from None
        self.settings = new
        return new

    # model ---------------------------------------------------------------------------------
    def default_model_path(self) -> Path:
        from app.llm.catalog import default_model_path

        return Path(default_model_path())

    def first_model(self, requested: str | None) -> ModelChoice:
        """The model to load at start: --model, then the one saved in Settings, then the default.
        A saved file that has gone missing falls back to the default, and says so."""
        if requested:
            return ModelChoice(requested)
        saved = self.settings.model_path
        if saved and (Path(saved).is_file() or _server_ref(saved) is not None):
            return ModelChoice(saved)  # a server that no longer answers gives way to the default
        default = str(self.default_model_path())
        if not saved:
            return ModelChoice(default)
        return ModelChoice(default, f"The model chosen earlier ({saved}) is missing, so the "
                                    f"default model is used.")

    def discover_models(self) -> list[ModelInfo]:
        """Models on disk: the default, the user's models folder, other apps' downloads."""
        from app.llm.catalog import discover_models

        return discover_models(home=self._models_home, paths=self.paths)

    def discover_servers(self) -> list[ModelInfo]:
        """Models of inference servers answering on loopback (Ollama, LM Studio, llama-server)."""
        from app.llm.server_discovery import discover_server_models

        return discover_server_models(self.settings)

    def begin_model_load(self) -> None:
        if not self.can_change_model:
            raise BurrowError(self.refusal())
        self._set_state(ControllerState.LOADING_MODEL)

    def end_model_load(self, model: ChatModel | None, path: str | None = None) -> None:
        """Adopt a loaded model (None: the load failed and the previous model stays)."""
        if model is not None:
            self.close()  # the old model is freed with the Session that holds it
            self.model, self.model_path = model, path
        self._set_state(ControllerState.IDLE)

    def load_model(self, path: Path) -> ChatModel:
        """Blocking load (call it from a worker thread); ModelLoadError on a bad file."""
        if not path.is_file():
            raise ModelLoadError(f"The model file {path} does not exist."
                                 if not path.exists() else f"{path} is not a GGUF model file.")
        return self._model_loader(path, self.settings)

    def describe_and_load(self, path: str, describe: bool) -> tuple[ModelInfo | None, ChatModel]:
        """(ModelInfo or None, model), from a worker thread: the GGUF header parse that labels the
        picker entry never runs on the UI thread."""
        server = _server_ref(path)
        if server is not None:  # a picker entry of an inference server, not a file
            from app.llm.server_backend import connect_server

            return None, connect_server(server.base_url, server.model, self.settings)
        info = None
        if describe:
            from app.llm.catalog import describe_model

            try:
                info = describe_model(path, "user")
            except (BurrowError, OSError):
                info = None  # the load below says what is wrong with the file
        return info, self.load_model(Path(path))

    # runs ----------------------------------------------------------------------------------
    def start_run(self) -> threading.Event:
        """Claim the single run slot; the returned event cancels the run."""
        if self.running:
            raise BurrowError("A question is already being answered; stop it first.")
        if self.workspace is None:
            raise WorkspaceError("Choose a workspace folder first (drop it here or click Browse).")
        if self._state is ControllerState.LOADING_MODEL:
            raise BurrowError(self.refusal())
        if self.model is None:
            raise BurrowError("No model is loaded: choose one under Model.")
        self._cancel = threading.Event()
        self._set_state(ControllerState.RUNNING)
        return self._cancel

    def stop_run(self) -> None:
        if self._state is ControllerState.RUNNING and self._cancel is not None:
            self._cancel.set()
            self._set_state(ControllerState.STOPPING)

    def finish_run(self) -> None:
        self._cancel = None
        self._set_state(ControllerState.IDLE)

    def iter_run(self, question: str, cancel: threading.Event) -> Iterator[RunEvent]:
        """The loop's events for one question, continuing the current chat (worker thread)."""
        chat = self.chat
        yield from self.session().ask(question, cancel, chat=chat)

    def session(self) -> Session:
        """The Session of the current workspace and model, opened at the first question and asked
        every later one, in any chat: its workspace, tools and index stay open. Another
        workspace, model or settings opens a new one (only between runs: one run at a time)."""
        from app.harness.session import Session

        assert self.workspace is not None and self.model is not None
        folder = check_workspace(str(self.workspace))  # still there (WorkspaceError says why not)
        stat = folder.stat()  # a folder deleted and made again under the same name is another one
        key = (folder, stat.st_dev, stat.st_ino, self.model, self.settings)
        if self._session is None or self._session_key != key:
            self.close()
            self._session = Session.open(folder, self.model, self.settings, paths=self.paths)
            self._session_key = key
        return self._session

    def close(self) -> None:
        """Close the open Session (its workspace and index); the next question opens another."""
        if self._session is not None:
            self._session.close()
        self._session, self._session_key = None, ()

    def answered(self, chat_id: str, answer: AnswerCompleted) -> None:
        """The chat continues from this answer."""
        from app.harness.records import ChatSoFar

        history = self.chat.history if self.chat and self.chat.chat_id == chat_id else ()
        self.chat = ChatSoFar(chat_id, history + answer.transcript)

    def ended_unanswered(self, chat_id: str, run_id: str) -> None:
        """A run ended without an answer (Stop, a failure): the chat still goes on, as the window
        shows it, and holds what the saved record of that run gives it, so the next question is
        a follow-up in the same chat (one row in History), never a silent new chat."""
        from app.harness.records import ChatSoFar, RunStore

        try:
            self.chat = RunStore(self.paths).load_chat(self.workspace, run_id)
        except (BurrowError, OSError):  # not saved (or set aside): the chat's id still goes on
            history = self.chat.history if self.chat and self.chat.chat_id == chat_id else ()
            self.chat = ChatSoFar(chat_id, history)

    def new_chat(self) -> None:
        self.chat = None

    # files and history ---------------------------------------------------------------------
    def read_file(self, rel: str) -> str:
        """A workspace file's text, read through the Workspace (its confinement and secrets rules)."""
        from app.workspace import Workspace

        if self.workspace is None:
            raise WorkspaceError("No workspace is open.")
        try:
            with Workspace(self.workspace, self.settings) as workspace:
                text_file = workspace.read_text(rel)
        except OSError as exc:
            raise WorkspaceError(f"{rel}: {exc.strerror or exc}") from None
        if text_file.binary:
            raise WorkspaceError(f"{rel} is a binary file and cannot be shown.")
        return text_file.text

    def list_runs(self, workspace: Path) -> HistoryLoad:
        from app.harness.records import RunStore

        store = RunStore(self.paths)
        runs = store.list_runs(workspace)
        return HistoryLoad(runs, len(store.set_aside))

    def open_chat(self, run_id: str) -> list[RunRecord]:
        """The records of the chat `run_id` belongs to, oldest first; the next question continues
        that chat."""
        from app.harness.records import RunStore

        if self.workspace is None:
            raise WorkspaceError("No workspace is open.")
        store = RunStore(self.paths)
        chat = store.load_chat(self.workspace, run_id)
        runs = [r for r in store.list_runs(self.workspace) if r.chat_id == chat.chat_id]
        self.chat = chat
        return [store.load(r.id) for r in sorted(runs, key=lambda r: (r.started_at, r.id))]
