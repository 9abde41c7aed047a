"""Files git tracks are in the workspace whatever .gitignore says (gitignore(5): tracked files are
not affected). A user's check: ujson keeps its C sources in `lib/`, which its .gitignore (GitHub's
Python template) ignores, and every tool, the index with them, had hidden the project's core.

Real git makes the repositories (index versions 2, 3 and 4), real ripgrep searches them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.harness.calls import ToolExecutor
from app.settings import Settings
from app.workspace import Workspace
from app.workspace.git_index import tracked_paths
from tests.tools.conftest import write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

FILES = {
    ".gitignore": "lib/\nbuild/\n*.log\n",
    "lib/enc.c": "static void Buffer_Realloc(Encoder *enc, size_t needed)\n{\n  enc->size *= 2;\n}\n",
    "lib/scratch.c": "int scratch_needle;\n",  # untracked, in the ignored folder: stays hidden
    "lib/keep.log": "needle in a tracked log\n",
    "build/out.c": "int built_needle;\n",
    "src/main.c": "int main(void) { Buffer_Realloc(0, 1); return 0; }\n",
}
TRACKED = (".gitignore", "src/main.c", "lib/enc.c", "lib/keep.log")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "PATH": "/usr/bin:/bin"})


def _repo(tmp_path: Path, version: int = 2) -> Path:
    root = write(tmp_path / "proj", FILES)
    _git(root, "init", "-q")
    _git(root, "add", "-f", *TRACKED)
    _git(root, "update-index", "--index-version", str(version))
    return root


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_lists_the_tracked_files(tmp_path: Path, version: int) -> None:
    root = _repo(tmp_path, version)
    if version == 3:  # an intent-to-add entry carries the extended flags that make an index version 3
        (root / "src" / "new.c").write_text("int later;\n")
        _git(root, "add", "-N", "src/new.c")
    data = (root / ".git" / "index").read_bytes()
    assert data[4:8] == version.to_bytes(4, "big")
    want = set(TRACKED) | ({"src/new.c"} if version == 3 else set())
    assert tracked_paths(data) == want


def test_a_damaged_index_reads_as_nothing_known() -> None:
    assert tracked_paths(b"") is None
    assert tracked_paths(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05short") is None
    assert tracked_paths(b"DIRC\x00\x00\x00\x09\x00\x00\x00\x00") is None  # a version this does not read
    assert tracked_paths(b"XXXX\x00\x00\x00\x02\x00\x00\x00\x00") is None


def test_tracked_files_under_an_ignored_folder_are_listed_untracked_ones_are_not(tmp_path: Path) -> None:
    ws = Workspace(_repo(tmp_path), Settings())
    files = ws.file_list(1000)
    assert {"lib/enc.c", "lib/keep.log", "src/main.c"} <= set(files)
    assert "lib/scratch.c" not in files and "build/out.c" not in files
    assert ws.tracked_ignored() == ("lib/enc.c", "lib/keep.log")
    ws.close()


def test_the_tools_find_tracked_files_once_and_keep_the_rest_hidden(tmp_path: Path) -> None:
    settings = Settings()
    ws = Workspace(_repo(tmp_path), settings)
    ex = ToolExecutor(ws, settings)

    def call(name: str, **args: object) -> str:
        out = ex.run("c1", name, json.dumps(args))
        assert out.ok, out.content
        return out.content

    found = call("search_text", pattern="needle")
    assert "lib/keep.log:1:" in found and "scratch" not in found and "built_needle" not in found
    assert call("search_text", pattern="needle", path="lib").count("lib/keep.log:1:") == 1
    assert "lib/keep.log" not in call("search_text", pattern="needle", glob="*.c")  # the glob still applies
    assert "lib/enc.c" in call("find_files", pattern="*.c") and "scratch" not in call("find_files", pattern="*.c")
    listing = call("list_dir", path="lib")
    assert "enc.c" in listing and "scratch.c" not in listing
    # the code index walks the same files: the definition in the ignored folder is found
    refs = call("find_references", symbol="Buffer_Realloc")
    assert "lib/enc.c:1: defined" in refs and "src/main.c:1: call" in refs
    ws.close()


def test_a_damaged_git_index_keeps_gitignore_as_it_was(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x07broken")
    ws = Workspace(root, Settings())
    assert "lib/enc.c" not in ws.file_list(1000)
    assert ws.tracked_ignored() == ()
    ws.close()


def test_a_commit_after_the_workspace_opened_is_seen(tmp_path: Path) -> None:
    root = write(tmp_path / "proj", FILES)
    _git(root, "init", "-q")
    ws = Workspace(root, Settings())
    assert "lib/enc.c" not in ws.file_list(1000)
    _git(root, "add", "-f", "lib/enc.c")
    assert "lib/enc.c" in ws.file_list(1000)
    ws.close()
