"""Loop tests: the scripted model between the real workspace, tools and executor."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.settings import Settings

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sample_project"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the fixture project (tests may change its files)."""
    target = tmp_path / "project"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture
def settings() -> Settings:
    return Settings(n_threads=1)


@pytest.fixture
def tools(project: Path, settings: Settings):
    """The real tools (executor over the real workspace) for the project copy."""
    from app.harness.calls import ToolExecutor
    from app.workspace import Workspace

    with Workspace(project, settings) as workspace:
        yield ToolExecutor(workspace, settings)

