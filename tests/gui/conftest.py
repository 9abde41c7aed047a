"""GUI test fixtures: a private BURROW_HOME, a small workspace, and a real window (offscreen)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.controller import SessionController
from app.gui.main_window import MainWindow
from app.paths import app_paths

REPO = Path(__file__).resolve().parents[2]
# The window's real-model tests run the 98 MB SmolLM2 as "the default" (BURROW_MODEL, the first
# place the default is looked for): they test the window's plumbing, and it answers in seconds.
# The catalog's default model itself is tested end to end through `ask` (tests/e2e).
DEFAULT_MODEL = REPO / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
SAMPLE_PROJECT = REPO / "tests" / "fixtures" / "sample_project"


def needs_real_model() -> None:
    if not any((REPO / "models").glob("*.gguf")):
        pytest.skip("no models/*.gguf (run `make setup`)")


@pytest.fixture
def home(burrow_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BURROW_MODEL", str(DEFAULT_MODEL))
    return burrow_home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small workspace whose lines the tests know."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Proj\n\nA tiny project.\nIt adds numbers.\n", encoding="utf-8")
    body = "".join(f"# line {i}\n" for i in range(1, 81))
    body += "def add(a, b):\n    return a + b\n"
    (root / "src" / "calc.py").write_text(body, encoding="utf-8")
    return root


@pytest.fixture
def controller(home: Path, tmp_path: Path) -> SessionController:
    # models_home: discovery looks at an empty folder, not the developer's real home
    return SessionController(app_paths(), models_home=tmp_path / "empty-home")


@pytest.fixture
def window(qtbot, controller: SessionController) -> MainWindow:
    win = MainWindow(controller)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win
