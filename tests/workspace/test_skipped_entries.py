"""Issue 25, faults 1 and 6, through the real CLI: a folder the user cannot read, and names that are
not valid UTF-8, are skipped, counted and named; nothing else is lost and no command fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.paths import project_root
from tests.workspace._nonroot import as_non_root

pytestmark = pytest.mark.timeout(180)


def burrow(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"BURROW_HOME": str(home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(as_non_root([sys.executable, "-m", "app", *args]), cwd=project_root(), env=env,
                          capture_output=True, text=True, timeout=120)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.fixture
def locked_ws(tmp_path: Path) -> Iterator[Path]:
    """src/main.py readable; locked/ (chmod 000, holding a file) and src/noread.py (chmod 000) not."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("def main():\n    return 'inside'\n")
    (ws / "src" / "noread.py").write_text("def noread():\n    pass\n")
    (ws / "locked").mkdir()
    (ws / "locked" / "hidden.py").write_text("def hidden_away():\n    pass\n")
    os.chmod(ws / "src" / "noread.py", 0)
    os.chmod(ws / "locked", 0)
    yield ws
    os.chmod(ws / "locked", 0o755)


def test_an_unreadable_folder_is_skipped_counted_and_named_and_every_tool_goes_on(
        tmp_path: Path, locked_ws: Path) -> None:
    home, ws = tmp_path / "home", str(locked_ws)
    report = json.loads(ok(burrow(home, "index", "--workspace", ws, "--json")))
    assert report["files"] == 2 and report["chunks"] >= 1
    assert report["skipped"] == {"unreadable": 2}  # the folder and the file
    assert report["skipped_folders"] == [{"path": "locked", "reason": "unreadable"}]
    refreshed = ok(burrow(home, "index", "--workspace", ws))
    assert "(0 changed, 0 removed)" in refreshed
    assert "skipped: 2 unreadable; folders: locked/ (unreadable: permission denied)" in refreshed

    def tool(name: str, arguments: dict) -> str:
        return ok(burrow(home, "tool", "--workspace", ws, name, json.dumps(arguments)))

    listing = tool("list_dir", {"depth": 3})
    assert "src/main.py  (" in listing and "locked/\n" not in listing + "\n"
    assert "locked/ (unreadable: permission denied)" in listing and "1 unreadable" in listing
    assert "src/main.py" in tool("find_files", {"pattern": "*.py"})
    assert "src/main.py:1: def main():" in tool("search_text", {"pattern": "def main"})
    assert "src/main.py:1-2" in tool("search_code", {"query": "main inside"})
    refused = burrow(home, "tool", "--workspace", ws, "list_dir", '{"path": "locked"}')
    assert refused.returncode == 1 and "permission denied: locked" in refused.stdout


def test_a_folder_made_readable_again_is_indexed_at_the_next_refresh(tmp_path: Path, locked_ws: Path) -> None:
    home, ws = tmp_path / "home", str(locked_ws)
    ok(burrow(home, "index", "--workspace", ws))
    os.chmod(locked_ws / "locked", 0o755)
    os.chmod(locked_ws / "src" / "noread.py", 0o644)  # a chmod changes no size nor mtime
    report = json.loads(ok(burrow(home, "index", "--workspace", ws, "--json")))
    assert report["files"] == 3 and report["skipped"] == {} and report["skipped_folders"] == []
    assert "src/noread.py:1-2" in ok(burrow(home, "tool", "--workspace", ws, "search_code", '{"query": "noread"}'))


def test_names_that_are_not_utf8_are_reported_so_and_skipped_files_by_reason(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    bad_folder = os.fsdecode(b"d\xe9j\xe0")
    (ws / bad_folder).mkdir(parents=True)
    (ws / bad_folder / "inner.py").write_text("x = 1\n")
    (ws / os.fsdecode(b"caf\xe9.py")).write_text("y = 2\n")
    (ws / "ok.py").write_text("def fine():\n    return 1\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.py").write_text("z = 3\n")
    (ws / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (ws / "huge.txt").write_text("x\n" * 500_001)  # over index_max_file_bytes (1,000,000)
    home = tmp_path / "home"
    report = json.loads(ok(burrow(home, "index", "--workspace", str(ws), "--json")))
    assert report["skipped"] == {"not_utf8": 2, "ignored": 1, "binary": 1, "too_big": 1}
    assert report["skipped_folders"] == [{"path": "d\\xe9j\\xe0", "reason": "not_utf8"}]
    plain = ok(burrow(home, "index", "--workspace", str(ws)))
    assert ("skipped: 2 not UTF-8 (name), 1 ignored (.gitignore), 1 binary, 1 too big (index_max_file_bytes); "
            "folders: d\\xe9j\\xe0/ (name not valid UTF-8)") in plain
    listing = ok(burrow(home, "tool", "--workspace", str(ws), "list_dir", "{}"))
    assert "2 with a name that is not valid UTF-8" in listing and "d\\xe9j\\xe0/ (name not valid UTF-8)" in listing
    found = ok(burrow(home, "tool", "--workspace", str(ws), "find_files", '{"pattern": "**"}'))
    assert "2 with a name that is not valid UTF-8" in found
    assert "control characters" not in listing + found
