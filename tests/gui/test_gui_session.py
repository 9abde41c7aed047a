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
