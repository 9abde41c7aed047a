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
