"""Issue 25, fault 8: a second process that finds another one building a workspace's index says it
waits for that one, with that one's progress, instead of waiting without a word. The other process
is this test, holding the index lock through the real Store and writing progress as a build does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.index.store import Store, database_path
from app.paths import app_paths, project_root
from tests.index.conftest import write

pytestmark = pytest.mark.timeout(180)
SMALL_MODEL = project_root() / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
FILES = {"README.md": "# Larder\n\nLarder tracks a pantry.\n",
         "larder/config.py": '"""Settings."""\n\nEXPIRY_WARNING_DAYS = 7\n'}
WAITING = "Waiting for another Burrow process that is indexing this folder"


def start(burrow_home: Path, *args: str) -> subprocess.Popen[str]:
    env = {"BURROW_HOME": str(burrow_home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=project_root(), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def next_line_with(proc: subprocess.Popen[str], text: str) -> str:
    """The next stderr line that holds `text` (the process writes one per change of progress)."""
    for line in proc.stderr:
        if text in line:
            return line.strip()
    raise AssertionError(f"{text!r} never came; exit {proc.wait()}")


@pytest.mark.parametrize("command", ["index", "ask"])
def test_a_second_process_says_it_waits_for_the_one_indexing_with_its_progress(
        tmp_path: Path, burrow_home: Path, command: str) -> None:
    if command == "ask" and not SMALL_MODEL.is_file():
        pytest.skip("the small test model is not installed (run `make setup`)")
    ws = write(tmp_path / "ws", FILES).resolve()
    args = ["index", "--workspace", str(ws)] if command == "index" else [
        "ask", "--workspace", str(ws), "--model", str(SMALL_MODEL), "--max-steps", "1", "How long until expiry?"]
    other = Store(database_path(app_paths().data_dir, ws), "another process's settings")
    with other.locked():
        other.note_progress(5, 40)
        proc = start(burrow_home, *args)
        assert next_line_with(proc, WAITING).endswith(f"{WAITING} (5/40 files)" + ("]" if command == "ask" else ""))
        other.note_progress(37, 40)
        assert "(37/40 files)" in next_line_with(proc, WAITING)
    out, err = proc.communicate(timeout=150)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and (out.startswith("files 2, chunks") if command == "index" else out.strip())
