"""The Qt-free rules behind the window: drops, recent workspaces, settings, one run at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.errors import BurrowError, SettingsError, WorkspaceError
from app.gui.controller import RecentWorkspaces, SessionController, workspace_from_drop
from app.paths import app_paths


def test_one_folder_is_accepted(project: Path) -> None:
    assert workspace_from_drop([str(project)]) == project.resolve()


@pytest.mark.parametrize("case, message", [
    ("file", "is a file"), ("two", "one folder at a time"), ("missing", "does not exist"),
    ("remote", "on this computer"), ("empty", "drop one folder"),
])
def test_bad_drops_are_refused_with_a_reason(project: Path, case: str, message: str) -> None:
    paths = {"file": [str(project / "README.md")], "two": [str(project), str(project / "src")],
             "missing": [str(project / "gone")], "remote": [None], "empty": []}[case]
    with pytest.raises(WorkspaceError, match=f"(?i){message}"):
        workspace_from_drop(paths)


def test_recent_workspaces_are_newest_first_and_forget_deleted_folders(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    recent = RecentWorkspaces(tmp_path / "recent.json", limit=3)
    recent.add(a)
    recent.add(b)
    recent.add(a)
    assert recent.load() == [a, b]
    b.rmdir()
    assert RecentWorkspaces(tmp_path / "recent.json").load() == [a]


def test_broken_recent_file_reads_as_empty(tmp_path: Path) -> None:
    (tmp_path / "recent.json").write_text("{not json", encoding="utf-8")
    assert RecentWorkspaces(tmp_path / "recent.json").load() == []


def test_settings_round_trip_through_the_config_file(home: Path) -> None:
    first = SessionController(app_paths())
    first.apply_settings(n_ctx=4096, temperature=0.7, max_steps=5, secrets_policy=False, theme="dark")
    again = SessionController(app_paths())
    s = again.settings
    assert (s.n_ctx, s.temperature, s.max_steps, s.secrets_policy, s.theme) == (4096, 0.7, 5, False, "dark")
    assert again.settings_notice == ""


def test_invalid_setting_is_refused_and_nothing_is_saved(home: Path) -> None:
    controller = SessionController(app_paths())
    with pytest.raises(SettingsError, match="Context size"):
        controller.apply_settings(n_ctx=100)
    assert controller.settings.n_ctx == 8192
    assert not app_paths().settings_file.exists()


def test_corrupt_settings_fall_back_to_defaults_with_a_backup_and_a_notice(home: Path) -> None:
    file = app_paths().ensure().settings_file
    file.write_text('{"n_ctx": "lots"', encoding="utf-8")
    controller = SessionController(app_paths())
    assert controller.settings.n_ctx == 8192
    backups = list(file.parent.glob("settings.json.broken-*"))
    assert len(backups) == 1 and backups[0].read_text() == '{"n_ctx": "lots"'
    assert backups[0].name in controller.settings_notice


def test_only_one_run_at_a_time(home: Path, project: Path) -> None:
    controller = SessionController(app_paths())
    with pytest.raises(WorkspaceError):
        controller.start_run()
    controller.set_workspace(project)
    controller.model = object()
    cancel = controller.start_run()
    with pytest.raises(BurrowError, match="already"):
        controller.start_run()
    controller.stop_run()
    assert cancel.is_set()
    controller.finish_run()
    assert not controller.start_run().is_set()


def test_set_workspace_is_remembered(home: Path, project: Path) -> None:
    SessionController(app_paths()).set_workspace(project)
    saved = json.loads(app_paths().recent_file.read_text())
    assert saved == [str(project.resolve())]


def test_every_question_and_chat_of_a_workspace_and_model_uses_one_session(home: Path, project: Path,
                                                                          monkeypatch) -> None:
    import threading

    from app.harness.session import Session
    from app.llm.scripted import ScriptedModel
    from app.workspace import Workspace

    opened: list[Session] = []
    real_open = Session.open
    monkeypatch.setattr(Session, "open", lambda *a, **kw: opened.append(real_open(*a, **kw)) or opened[-1])
    closed: list[Session] = []
    real_close = Session.close
    monkeypatch.setattr(Session, "close", lambda self: closed.append(self) or real_close(self))
    walks: list[int] = []
    real_walk = Workspace.list_tree

    def walk(self, path=".", depth=1, **kw):
        walks.extend([depth] if depth > 1 else [])
        return real_walk(self, path, depth, **kw)

    monkeypatch.setattr(Workspace, "list_tree", walk)
    controller = SessionController(app_paths())
    controller.set_workspace(project)
    controller.end_model_load(ScriptedModel(["add adds.", "It adds.", "a + b.", "Sum."]), "scripted")

    def ask(question: str) -> None:
        assert any(type(e).__name__ == "RunStopped" for e in controller.iter_run(question, threading.Event()))

    ask("What does add do?")
    ask("And what does it return?")
    controller.new_chat()
    ask("Where is add?")
    assert len(opened) == 1 and len(walks) == 3 and not closed  # one session; one walk per question
    other = project.parent / "other"
    other.mkdir()
    (other / "x.py").write_text("def x():\n    return 1\n")
    controller.set_workspace(other)
    assert closed == opened  # the old workspace's session is closed at once
    ask("What is x?")
    assert len(opened) == 2
    controller.close()
    assert closed == opened
