"""The outside surfaces: `python -m app index`, search_code through the real executor and the
`tool` command, and two processes building one workspace's index at the same time."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.harness.calls import ToolExecutor
from app.settings import Settings
from app.workspace import Workspace
from tests.index.conftest import write

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.timeout(180)
FILES = {
    "README.md": "# Larder\n\nLarder tracks a pantry.\n",
    "larder/config.py": '"""Settings."""\n\nEXPIRY_WARNING_DAYS = 7\n',
    "larder/store.py": "".join(
        f"def helper_{n}(items):\n    return items[{n}]\n\n\n" for n in range(200)
    ),
    "larder/report.py": "def expiring_soon(today):\n"
    '    """Items that expire within the warning window."""\n'
    "    return []\n",
}


def app(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"BURROW_HOME": str(home), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_index_command_builds_refreshes_and_reports(tmp_path: Path) -> None:
    ws = write(tmp_path / "ws", FILES)
    first = app(tmp_path / "home", "index", "--workspace", str(ws), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert (report["files"], report["changed"], report["rebuilt"]) == (4, 4, True)
    assert report["chunks"] >= 200 and report["seconds"] >= 0
    assert "indexing 4/4 files" in first.stderr
    again = app(tmp_path / "home", "index", "--workspace", str(ws))
    assert again.returncode == 0 and again.stdout.startswith("files 4, chunks ")
    assert "(0 changed, 0 removed)" in again.stdout
    rebuilt = json.loads(
        app(tmp_path / "home", "index", "--workspace", str(ws), "--rebuild", "--json").stdout
    )
    assert rebuilt["rebuilt"] and rebuilt["changed"] == 4
    missing = app(tmp_path / "home", "index", "--workspace", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_two_processes_indexing_at_once_leave_one_sound_index(tmp_path: Path) -> None:
    ws = write(tmp_path / "ws", FILES)
    env = {"BURROW_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "app", "index", "--workspace", str(ws), "--json"]
    procs = [
        subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    reports = [json.loads(out) for out, _ in outs]
    assert {r["files"] for r in reports} == {4}
    assert sorted(r["changed"] for r in reports)[0] == 0  # whoever came second found nothing to do
    (db,) = (tmp_path / "home" / "data" / "index").glob("*.sqlite3")
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*), count(DISTINCT path) FROM files").fetchone() == (4, 4)
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM fts").fetchone()[0] == chunks


@pytest.fixture
def executor(tmp_path: Path):
    settings = Settings()
    workspace = Workspace(write(tmp_path / "ws", FILES), settings)
    yield ToolExecutor(workspace, settings)
    workspace.close()


def test_search_code_through_the_real_executor(executor: ToolExecutor) -> None:
    out = executor.run(
        "c1", "search_code", json.dumps({"query": "which items expire soon", "limit": 2})
    )
    assert out.ok, out.content
    lines = out.content.splitlines()
    assert lines[0] == "2 chunks for 'which items expire soon', best first:"
    assert lines[2] == "larder/report.py:1-3  function expiring_soon"
    assert lines[3] == "1| def expiring_soon(today):"
    assert out.spans[0].path == "larder/report.py" and (
        out.spans[0].start_line,
        out.spans[0].end_line,
    ) == (1, 3)
    assert len(out.spans) == 2


def test_search_code_is_capped_like_read_file(tmp_path: Path) -> None:
    settings = Settings(read_max_lines=5, index_hit_max_lines=3)
    with Workspace(write(tmp_path / "ws", FILES), settings) as ws:
        out = ToolExecutor(ws, settings).run(
            "c1", "search_code", '{"query": "helper items", "limit": 4}'
        )
    numbered = [
        ln for ln in out.content.splitlines() if "| " in ln and ln.split("|")[0].strip().isdigit()
    ]
    assert len(numbered) == 5
    assert "[cut: " in out.content and "read_file(path=" in out.content
    assert sum(s.end_line - s.start_line + 1 for s in out.spans) == 5


def test_search_code_refuses_bad_arguments_and_says_when_nothing_matches(
    executor: ToolExecutor,
) -> None:
    assert not executor.run("c1", "search_code", '{"query": ""}').ok
    assert not executor.run("c1", "search_code", '{"query": "x", "limit": 0}').ok
    none = executor.run("c1", "search_code", '{"query": "zzzqqq"}')
    assert none.ok and none.content.startswith("no indexed code or docs match 'zzzqqq'")


def test_search_code_through_the_tool_command_and_batch(tmp_path: Path) -> None:
    ws = write(tmp_path / "ws", FILES)
    single = app(
        tmp_path / "home",
        "tool",
        "--workspace",
        str(ws),
        "search_code",
        '{"query": "EXPIRY_WARNING_DAYS"}',
    )
    assert single.returncode == 0, single.stderr
    assert (
        "larder/config.py:1-3  code" in single.stdout
        and "3| EXPIRY_WARNING_DAYS = 7" in single.stdout
    )
    batch = (
        "\n".join(
            json.dumps({"id": str(n), "name": "search_code", "arguments": json.dumps({"query": q})})
            for n, q in enumerate(["pantry", "expiring_soon"])
        )
        + "\n"
    )
    done = app(tmp_path / "home", "tool", "--workspace", str(ws), "--batch", "-", stdin=batch)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r["ok"]) for r in results] == [("0", True), ("1", True)]
    assert "README.md:1-3  section Larder" in results[0]["content"]
    assert "larder/report.py:1-3  function expiring_soon" in results[1]["content"]


@pytest.mark.parametrize("text", ["", "a", "a\n", "a\nb", "a\nb\n", "a\n\n", "\n\n\n", "a\r\nb\r\n\r\nc", "x\ny\r\n"])
def test_a_chunks_lines_are_the_files_lines_as_split_lines_counts_them(text: str) -> None:
    from app.tools.code_search import _lines_of
    from app.workspace.values import split_lines

    whole = split_lines(text)
    for first in range(1, 6):
        for last in range(first, 7):
            assert _lines_of(text, first, last) == whole[first - 1:last], (text, first, last)


def test_search_code_shows_a_deep_chunk_with_its_blank_and_crlf_lines(tmp_path: Path) -> None:
    body = "".join(f"def filler_{n}():\r\n    return {n}\r\n\r\n\r\n" for n in range(300))
    body += "def pantry_rotation(shelf):\r\n    first = shelf[0]\r\n\r\n    return first\r\n"
    settings = Settings()
    with Workspace(write(tmp_path / "ws", {"larder/deep.py": body}), settings) as ws:
        out = ToolExecutor(ws, settings).run("c1", "search_code", '{"query": "pantry rotation", "limit": 1}')
    assert out.ok, out.content
    assert out.content.splitlines()[1:6] == [
        "", "larder/deep.py:1201-1204  function pantry_rotation",
        "1201| def pantry_rotation(shelf):", "1202|     first = shelf[0]", "1203| ",
    ]
    assert [h.text for h in out.hits] == ["def pantry_rotation(shelf):", "    first = shelf[0]", "", "    return first"]
