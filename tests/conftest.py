"""Fixtures every test shares."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def burrow_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private BURROW_HOME (settings, runs, models dir) and no BURROW_MODEL override, so no test
    reads or writes the real home."""
    home = tmp_path / "burrow-home"
    monkeypatch.setenv("BURROW_HOME", str(home))
    monkeypatch.delenv("BURROW_MODEL", raising=False)
    return home


# Folders whose tests share an expensive session fixture (the PyInstaller bundle, a running
# llama-cpp-python server, the e2e prefix cache): with `-n 2 --dist loadgroup` (make test)
# each folder runs on one worker, so that fixture is built once.
_SHARED_FIXTURE_FOLDERS = ("packaging", "server", "e2e")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks (it registers after conftests)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent
    for item in items:
        folder = item.path.relative_to(tests).parts[0]
        if folder in _SHARED_FIXTURE_FOLDERS:
            item.add_marker(pytest.mark.xdist_group(folder))
