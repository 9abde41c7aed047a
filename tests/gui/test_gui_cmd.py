"""`python -m app` as a user starts it: the no-display message, and a window before heavy imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.gui_cmd import has_display

REPO = Path(__file__).resolve().parents[2]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "BURROW_SMOKE_QUESTION")}
    return {**env, "BURROW_HOME": str(home), **extra}


def test_display_detection() -> None:
    assert not has_display({}, "linux")
    assert has_display({"DISPLAY": ":0"}, "linux")
    assert has_display({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert has_display({}, "win32")


def test_without_a_display_it_says_so_and_points_to_ask(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "app", "--workspace", str(tmp_path)], cwd=REPO,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "no display" in proc.stderr and "python -m app ask" in proc.stderr
    assert "Traceback" not in proc.stderr


PROBE = """
import sys
from PySide6.QtWidgets import QApplication
import app.gui.main_window as mw
original_show = mw.MainWindow.show
def show(self):
    early = sorted(m for m in ("pydantic", "app.tools.registry", "app.llm.catalog") if m in sys.modules)
    print("AT SHOW", early, flush=True)
    original_show(self)
def probe(self):
    heavy = sorted(m for m in ("llama_cpp", "tree_sitter") if m in sys.modules)
    print("PROBE", self.isVisible(), self.windowHandle().isExposed(), heavy, flush=True)
    app = QApplication.instance()
    print("STYLE", app.style().name(), app.palette().window().color().name(), flush=True)
    from PySide6.QtGui import QShortcut
    print("SHORTCUTS", sorted(s.key().toString() for s in self.findChildren(QShortcut)), flush=True)
    QApplication.instance().exit(0)
mw.MainWindow.show = show
mw.MainWindow.start_background = probe
from app.cli.main import main
sys.exit(main(["--workspace", sys.argv[1], "--timing"]))
"""


def test_window_shows_before_llama_cpp_or_tree_sitter_is_imported(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], cwd=REPO,
                          env=_env(tmp_path / "home", QT_QPA_PLATFORM="offscreen"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    shown = json.loads(next(line for line in lines if line.startswith("{")))
    assert shown["event"] == "window_shown" and shown["seconds_since_command"] > 0
    assert "PROBE True True []" in lines  # background work starts after the first expose
    assert "STYLE fusion #efefef" in lines  # Fusion from the app's arguments, its light palette
    assert "SHORTCUTS ['Ctrl+L', 'Ctrl+N', 'Esc']" in lines  # added once the views have painted
    assert "AT SHOW []" in lines  # pydantic, the tool registry and the catalog wait for the paint


def test_line_spans_come_without_pydantic_or_the_tool_registry() -> None:
    code = ("import sys, app.values; mods = str(sorted(sys.modules));"
            "print('registry' in mods, 'pydantic' in mods, app.values.LineSpan('a.py', 1, 2))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout.split() == ["False", "False", "a.py:1-2"], proc.stderr


@pytest.mark.real_model
def test_smoke_run_exits_cleanly_after_answering(tmp_path) -> None:
    """The packaging smoke mode, end to end with the real model: exit 0, never Qt's abort (134)
    from a worker thread that outlived the window. A home full of GGUF-looking files keeps model
    discovery (started when the run ends) busy while the app quits: the case that aborted."""
    root = Path(__file__).resolve().parents[2]
    model = root / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not model.exists():
        pytest.skip("models/*.gguf is absent (run make setup)")
    home = tmp_path / "user"
    for folder in range(150):
        models = home / ".lmstudio" / "models" / f"vendor{folder}"
        models.mkdir(parents=True)
        for index in range(100):
            (models / f"m{index}.gguf").write_bytes(b"GGUF")
    env = {**os.environ, "HOME": str(home), "BURROW_HOME": str(tmp_path / "burrow"),
           "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-m", "app", "gui", "--workspace", str(root / "tests/fixtures/sample_project"),
         "--model", str(model), "--smoke-question", "What license does the project use?"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    # answered, possibly after the model repeated a call and was made to answer
    assert report["stopped_reason"] in ("answered", "repeated_call") and report["tool_calls"]
    assert report["answer"].strip()


def test_version_is_printed_without_opening_a_window(tmp_path: Path) -> None:
    from app import __version__

    proc = subprocess.run([sys.executable, "-m", "app", "--version"], cwd=REPO,
                          env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"burrow {__version__}"
