"""The desktop session without Qt: workspace choice, recent workspaces, settings and runs.

The window is a thin view over this controller, so every rule a user meets (which drops are
refused, where settings live, one run at a time) is testable without a display. Heavy modules
(the loop, the tools, llama_cpp) are imported inside the methods that need them, so the window
can show before any of them load.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import BurrowError, SettingsError, WorkspaceError
from app.paths import AppPaths

if TYPE_CHECKING:  # app.settings brings pydantic (~0.1 s): loaded on first use, after the window shows
    from app.settings import Settings

THEMES = ("system", "light", "dark")

MAX_RECENT = 8


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
class SettingsLoad:
    settings: Settings
    notice: str = ""  # non-empty when a broken file was set aside


def load_settings_with_notice(path: Path) -> SettingsLoad:
    """load_settings, plus a sentence for the user when it fell back to defaults."""
    from app.settings import load_settings

    existed = path.exists()
    settings = load_settings(path)
    if existed and not path.exists():
        backups = sorted(path.parent.glob(f"{path.name}.broken-*"))
        kept = backups[-1].name if backups else "a backup"
        return SettingsLoad(settings, f"Your settings file could not be read, so defaults are in "
                                      f"use. The old file was kept as {kept}.")
    return SettingsLoad(settings)


class RecentWorkspaces:
    """Most-recent-first list of workspace folders, saved as JSON in the data dir."""

    def __init__(self, file: Path, limit: int = MAX_RECENT) -> None:
        self._file = file
        self._limit = limit

    def load(self) -> list[Path]:
        """Saved folders that still exist; a broken file reads as empty."""
        try:
            items = json.loads(self._file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(items, list):
            return []
        return [Path(p) for p in items if isinstance(p, str) and Path(p).is_dir()]

    def add(self, folder: Path) -> list[Path]:
        from app.storage import atomic_write_text

        items = [folder] + [p for p in self.load() if p != folder]
        items = items[: self._limit]
        atomic_write_text(self._file, json.dumps([str(p) for p in items], indent=1))
        return items


ModelLoader = Callable[[Path, "Settings"], object]


def peek_theme(path: Path) -> str:
    """The saved theme, read without pydantic so the first paint has the right colours; "system"
    for anything the Settings model would not accept (it decides, once loaded)."""
    try:
        theme = json.loads(path.read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return "system"
    return theme if theme in THEMES else "system"


def default_model_loader(path: Path, settings: Settings) -> object:
    """The real llama-cpp backend, imported only when a model is loaded."""
    from app.llm.llama_backend import load_model

    return load_model(path, settings)


def _server_ref(key: str) -> object | None:
    from app.llm.server_backend import parse_model_key

    return parse_model_key(key)


class SessionController:
    """What one window works on: a workspace, settings, a loaded model and at most one run."""

    def __init__(self, paths: AppPaths, settings: Settings | None = None,
                 model_loader: ModelLoader = default_model_loader,
                 models_home: Path | None = None) -> None:
        self.paths = paths.ensure()
        self._settings = settings
        self._settings_notice = ""
        self._settings_lock = threading.Lock()
        self.recent = RecentWorkspaces(paths.recent_file)
        self.workspace: Path | None = None
        self.model: object | None = None
        self._model_loader = model_loader
        self._models_home = models_home  # where other apps' models are looked for (default ~)
        self._cancel: threading.Event | None = None

    # workspace -----------------------------------------------------------------------------
    def set_workspace(self, raw: str | Path) -> Path:
        folder = check_workspace(str(raw))
        self.workspace = folder
        self.recent.add(folder)
        return folder

    # settings ------------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """Loaded on first use, so the window can paint before pydantic is imported."""
        with self._settings_lock:  # the launch loads them on a worker thread
            if self._settings is None:
                loaded = load_settings_with_notice(self.paths.settings_file)
                self._settings, self._settings_notice = loaded.settings, loaded.notice
            return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value

    @property
    def settings_notice(self) -> str:
        """Non-empty when a broken settings file was set aside (loads the settings)."""
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

    def discover_models(self) -> list:
        """Models on disk: the default, the user's models folder, other apps' downloads."""
        from app.llm.catalog import discover_models

        return discover_models(home=self._models_home, paths=self.paths)

    def discover_servers(self) -> list:
        """Models of inference servers answering on loopback (Ollama, LM Studio, llama-server)."""
        from app.llm.server_discovery import discover_server_models

        return discover_server_models(self.settings)

    def load_model(self, path: Path) -> object:
        """Blocking load (call it from a worker thread); ModelLoadError on a bad file."""
        model = self._model_loader(path, self.settings)
        self.model = model
        return model

    def describe_and_load(self, path: str, describe: bool) -> tuple:
        """(ModelInfo or None, model), from a worker thread: the GGUF header parse that labels the
        picker entry never runs on the UI thread."""
        server = _server_ref(path)
        if server is not None:  # a picker entry of an inference server, not a file
            from app.llm.server_backend import connect_server

            self.model = connect_server(server.base_url, server.model, self.settings)
            return None, self.model
        info = None
        if describe:
            from app.llm.catalog import describe_model

            try:
                info = describe_model(path, "user")
            except (BurrowError, OSError):
                info = None  # the load below says what is wrong with the file
        return info, self.load_model(Path(path))

    # runs ----------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start_run(self) -> threading.Event:
        """Claim the single run slot; the returned event cancels the run."""
        if self._cancel is not None:
            raise BurrowError("A question is already being answered; stop it first.")
        if self.workspace is None:
            raise WorkspaceError("Choose a workspace folder first (drop it here or click Browse).")
        if self.model is None:
            raise BurrowError("The model is not loaded yet.")
        self._cancel = threading.Event()
        return self._cancel

    def stop_run(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def finish_run(self) -> None:
        self._cancel = None

    def iter_run(self, question: str, cancel: threading.Event) -> Iterator[object]:
        """The loop's events for one question (call from a worker thread)."""
        from app.harness.session import Session

        assert self.workspace is not None and self.model is not None
        with Session.open(self.workspace, self.model, self.settings, paths=self.paths) as session:
            yield from session.ask(question, cancel)

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

    def list_runs(self, workspace: Path) -> list:
        from app.harness.records import RunStore

        return RunStore(self.paths).list_runs(workspace)

    def load_run(self, run_id: str) -> object:
        from app.harness.records import RunStore

        return RunStore(self.paths).load(run_id)
