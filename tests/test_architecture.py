"""The layer rules of ARCHITECTURE.md, enforced: imports point down, Qt and llama_cpp stay put."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def test_import_layers_hold() -> None:
    proc = subprocess.run([_bin("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 3 kept, 0 broken" in proc.stdout


def test_help_lists_commands_without_heavy_imports() -> None:
    code = (
        "import sys; from app.cli.main import main\n"
        "try: main(['--help'])\n"
        "except SystemExit: pass\n"
        "heavy = [m for m in ('llama_cpp', 'PySide6', 'tree_sitter') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for command in ("gui", "ask", "tool", "models"):
        assert command in proc.stdout
    assert "HEAVY []" in proc.stdout


def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [_bin("ruff"), "check", "app", "tests", "bench", "scripts", "packaging"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
