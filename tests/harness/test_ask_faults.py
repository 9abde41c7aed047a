"""`python -m app ask` as a user runs it (a subprocess, real files, the small real model): the
faults of issue 25 that end before or around the model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.harness.records import workspace_key
from app.paths import app_paths, project_root

ROOT = project_root()
SMALL_MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def small_model() -> Path:
    if not SMALL_MODEL.is_file():
        pytest.skip("the small test model is not installed (run `make setup`)")
    return SMALL_MODEL


def ask(home: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"BURROW_HOME": str(home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    argv = [sys.executable, "-m", "app", "ask", "--workspace", str(workspace), "--model", str(SMALL_MODEL), *args]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=150)


@pytest.mark.parametrize("already_set_aside", [False, True])
def test_continuing_a_corrupt_run_says_it_exists_and_where_it_was_moved(
        small_model: Path, project: Path, burrow_home: Path, already_set_aside: bool) -> None:
    """Fault 7: not "no saved run named ...", whether this ask or an earlier one set it aside."""
    run_id = "20261201-101500-abcdef"
    folder = app_paths().runs_dir / workspace_key(project)
    folder.mkdir(parents=True)
    record = folder / f"{run_id}.json"
    record.write_text('{"id": "20261201-101500-abcdef", "question": "half a fi', encoding="utf-8")
    aside = record.with_name(record.name + ".corrupt")
    if already_set_aside:
        record.rename(aside)
    done = ask(burrow_home, project, "--continue", run_id, "and then?")
    assert done.returncode == 2, done.stderr
    assert f"saved run {run_id} exists but could not be read" in done.stderr
    assert str(aside) in done.stderr and aside.is_file() and not record.exists()
    assert "no saved run named" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
