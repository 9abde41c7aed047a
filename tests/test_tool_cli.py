"""The outside contract: `python -m app tool --workspace DIR NAME [JSON_ARGS]` and `--batch FILE|-`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.harness.calls import ToolExecutor
from app.settings import Settings
from app.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(120)


def _tool(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"BURROW_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "app", "tool", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("def main():\n    print('hi')\n")
    (root / ".env").write_text("TOKEN=1\n")
    return root


def test_single_call_prints_the_content(tmp_path: Path, ws: Path) -> None:
    done = _tool(tmp_path, "--workspace", str(ws), "read_file", '{"path": "src/main.py"}')
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == "1| def main():"
    refused = _tool(tmp_path, "--workspace", str(ws), "read_file", '{"path": ".env"}')
    assert refused.returncode == 1 and "secrets policy" in refused.stdout


def test_batch_from_stdin_answers_each_line_in_order(tmp_path: Path, ws: Path) -> None:
    calls = [
        {"id": "a", "name": "search_text", "arguments": '{"pattern": "print"}'},
        {"id": "b", "name": "read_file", "arguments": '{"path": "../etc/passwd"}'},
        {"id": "c", "name": "read_file", "arguments": '{"path": "src/main.py", '},
        {"id": "d", "name": "no_such_tool", "arguments": "{}"},
        {"id": "e", "name": "list_dir", "arguments": ""},
    ]
    done = _tool(tmp_path, "--workspace", str(ws), "--batch", "-", stdin="\n".join(map(json.dumps, calls)) + "\n")
    assert done.returncode == 1, done.stderr  # some calls failed: every line is still answered
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in rows] == list("abcde")
    assert [r["ok"] for r in rows] == [True, False, False, False, True]
    assert set(rows[0]) == {"id", "ok", "content"}
    with Workspace(ws, Settings()) as w:  # content is exactly what the model receives
        expected = ToolExecutor(w, Settings()).run("a", "search_text", calls[0]["arguments"]).content
    assert rows[0]["content"] == expected


@pytest.mark.parametrize("name,arguments", [
    ("read_file", '{"path": "src/main.py", '),  # bad JSON
    ("read_file", '{"path": "../etc/passwd"}'),  # a path with '..'
    ("no_such_tool", "{}"),  # an unknown tool
    ("read_file", '{"path": "src/missing.py"}'),  # a tool error
    ("read_file", '{"path": "src/main.py", "colour": 1}'),  # arguments the schema refuses
])
def test_a_failed_call_exits_1_with_the_reason_on_stdout(tmp_path: Path, ws: Path, name: str, arguments: str) -> None:
    """Issue 25, fault 5: scripts can tell a failed call from a good one by the exit status."""
    done = _tool(tmp_path, "--workspace", str(ws), name, arguments)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout.strip() and "ok=false" in done.stderr and "Traceback" not in done.stderr


def test_a_batch_whose_calls_all_succeed_exits_0(tmp_path: Path, ws: Path) -> None:
    calls = [{"id": "a", "name": "list_dir", "arguments": "{}"},
             {"id": "b", "name": "read_file", "arguments": '{"path": "src/main.py"}'}]
    done = _tool(tmp_path, "--workspace", str(ws), "--batch", "-", stdin="\n".join(map(json.dumps, calls)) + "\n")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["ok"] for line in done.stdout.splitlines()] == [True, True]


def test_batch_from_file(tmp_path: Path, ws: Path) -> None:
    batch = tmp_path / "calls.jsonl"
    batch.write_text(json.dumps({"id": "1", "name": "file_outline", "arguments": '{"path": "src/main.py"}'}) + "\n")
    done = _tool(tmp_path, "--workspace", str(ws), "--batch", str(batch))
    assert done.returncode == 0 and "def main()  L1-2" in json.loads(done.stdout)["content"]


@pytest.mark.parametrize("args,stdin", [
    (["read_file"], None),  # no --workspace
    (["--workspace", "/nonexistent/burrow-ws", "list_dir"], None),
    (["--workspace", "WS"], None),  # neither NAME nor --batch
    (["--workspace", "WS", "--batch", "-", "list_dir"], ""),
    (["--workspace", "WS", "--batch", "-"], "not json\n"),
    (["--workspace", "WS", "--batch", "-"], '{"id": 1, "name": "list_dir", "arguments": ""}\n'),
    (["--workspace", "WS", "--batch", "-"], '{"id": "1", "name": "list_dir", "arguments": 5}\n'),
    (["--workspace", "WS", "--batch", "missing.jsonl"], None),
])
def test_usage_errors_exit_2(tmp_path: Path, ws: Path, args, stdin) -> None:
    done = _tool(tmp_path, *[str(ws) if a == "WS" else a for a in args], stdin=stdin)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip() and not done.stdout.strip()
