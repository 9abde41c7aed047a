"""list_dir and find_files: sorted, sized, capped, and honest about what they hid."""

from __future__ import annotations

import os
import re

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20


def test_list_dir_marks_folders_sizes_and_hidden(make_call) -> None:
    call = make_call({"src/a.py": "abc", "README.md": "hi\n", ".env": "K=1", "build/out.o": "x",
                      ".gitignore": "build/\n*.log\n", "debug.log": "x", "logo.png": PNG})
    out = call("list_dir")
    lines = out.content.splitlines()
    assert lines[0] == "the workspace root: 3 entries (depth 1)"
    assert lines[1:4] == [".gitignore  (13 B)", "README.md  (3 B)", "src/"]
    assert "skipped: 1 binary files" in out.content
    assert "hidden: 1 secret-looking (refused by the secrets policy), 2 .gitignored" in out.content


def test_list_dir_depth_and_subfolder(make_call) -> None:
    call = make_call({"a/b/c/d.txt": "x", "a/e.txt": "y"})
    assert call("list_dir", path="a").content.splitlines()[1:] == ["a/b/", "a/e.txt  (1 B)"]
    deep = call("list_dir", path="a", depth=3).content
    assert "a/b/c/d.txt  (1 B)" in deep
    bad = call("list_dir", path="a/e.txt")
    assert not bad.ok and 'read_file(path="a/e.txt")' in bad.content


def test_list_dir_pages_with_the_suggested_call(make_call) -> None:
    call = make_call({f"f{i:03}.txt": "x" for i in range(25)}, list_max_entries=10)
    first = call("list_dir")
    assert 'next: list_dir(path=".", depth=1, offset=10)' in first.content
    second = call("list_dir", offset=10)
    assert second.content.splitlines()[1].startswith("f010.txt")


def test_gitignore_negation_and_nested_files(make_call) -> None:
    call = make_call({".gitignore": "*.gen.py\n!keep.gen.py\n", "x.gen.py": "", "keep.gen.py": "",
                      "sub/.gitignore": "local/\n", "sub/local/y.py": "", "sub/z.py": ""})
    out = call("find_files", pattern="*.py").content
    assert "keep.gen.py" in out and "sub/z.py" in out
    assert "x.gen.py" not in out.replace("keep.gen.py", "") and "sub/local" not in out
    call = make_call({".gitignore": "*.py\n", "a.py": ""}, respect_gitignore=False)
    assert call("find_files", pattern="*.py").content.startswith("5 files")


def test_find_files_sorted_counted_and_paged(make_call) -> None:
    files = {f"pkg/m{i:02}.py": "" for i in range(30)} | {"top.py": "", "doc.md": ""}
    call = make_call(files, find_max_results=10)
    out = call("find_files", pattern="**/*.py")
    assert out.content.splitlines()[0] == "31 files match '**/*.py':"
    shown = [line.split("  ")[0] for line in out.content.splitlines()[1:11]]
    assert shown == sorted(shown)
    nxt = re.search(r"next: find_files\(pattern=\"\*\*/\*\.py\", offset=(\d+)\)", out.content)
    assert nxt and nxt.group(1) == "10"
    assert call("find_files", pattern="pkg/*.py").content.startswith("30 files")
    assert call("find_files", pattern="m0?.py").content.startswith("10 files")


def test_find_files_skips_binaries_and_says_so(make_call) -> None:
    call = make_call({"a.dat": PNG, "b.dat": "text"})
    out = call("find_files", pattern="*.dat").content
    assert out.startswith("1 files match") and "skipped: 1 binary files that match" in out


def test_find_files_no_match_gives_a_hint(make_call) -> None:
    out = make_call({"a.py": ""})("find_files", pattern="src/*.rs")
    assert out.ok and "0 files match" in out.content and "Hint" in out.content


def test_top_level_summary_and_file_list(make_call, tmp_path) -> None:
    from app.settings import Settings
    from app.workspace import Workspace

    make_call({"src/a.py": "", "README.md": "", ".env": "", "z/y/x.txt": ""})
    with Workspace(tmp_path / "proj", Settings()) as ws:
        assert ws.file_list(10) == ("README.md", "src/a.py", "z/y/x.txt")
        assert ws.file_list(2) == ("README.md", "src/a.py")
        summary = ws.top_level_summary()
        assert summary.splitlines()[:4] == ["workspace proj/", "README.md", "src/", "z/"]
        assert "1 secret-looking" in summary and str(tmp_path) not in summary


def test_symlink_inside_workspace_is_followed(make_call, tmp_path) -> None:
    call = make_call({"real/a.py": "print(1)\n"})
    os.symlink("real", tmp_path / "proj" / "alias")
    os.symlink("real/a.py", tmp_path / "proj" / "a_link.py")
    assert call("read_file", path="alias/a.py").ok and call("read_file", path="a_link.py").ok
    assert "alias/a.py" in call("list_dir", path="alias").content
    assert "symlink to a dir inside the workspace" in call("list_dir").content


def test_find_files_walk_cap_says_so_and_next_call_reaches_further(make_call) -> None:
    files = {f"d{i // 50}/f{i:03}.txt": "x" for i in range(250)}
    call = make_call(files, walk_max_entries=100, find_max_results=80)
    first = call("find_files", pattern="*.txt").content
    assert first.startswith("101 files match") and "[cut: the walk stopped after 101 files" in first
    nxt = re.search(r'next: find_files\(pattern="\*\.txt", offset=(\d+)\)', first)
    assert nxt and nxt.group(1) == "80"
    last_seen = None
    offset = 80
    while offset is not None:  # each next call reaches further until every file was shown
        out = call("find_files", pattern="*.txt", offset=offset).content
        last_seen = [line.split("  ")[0] for line in out.splitlines()[1:] if line.endswith("(1 B)")][-1]
        found = re.search(r"offset=(\d+)\)", out)
        offset = int(found.group(1)) if found else None
    assert last_seen == "d4/f249.txt"


def test_find_files_glob_is_ours_not_ripgreps(make_call) -> None:
    call = make_call({"a{b}.py": "", "ab.py": "", "src/x/y.py": "", "src/z.py": "", "!n.py": ""})
    assert call("find_files", pattern="a{b}.py").content.splitlines()[1:-1] == ["a{b}.py  (0 B)"]
    assert call("find_files", pattern="src/*.py").content.splitlines()[1:-1] == ["src/z.py  (0 B)"]
    assert call("find_files", pattern="src/**").content.startswith("2 files")
    assert call("find_files", pattern="!n.py").content.startswith("1 files")


def test_find_files_hides_secrets_silently_and_counts_refused_hard_links(make_call, tmp_path) -> None:
    call = make_call({".env": "K=1", "deploy/id_rsa": "k", ".ssh/config": "x", "ok.py": ""})
    os.link(tmp_path / "proj" / "ok.py", tmp_path / "twin.py")
    out = call("find_files", pattern="**").content
    assert out.startswith("0 files match") and ".env" not in out and "id_rsa" not in out
    assert ".ssh" not in out and "1 secret" not in out  # no per-file count that would betray one
    assert "left out: 1 matching files refused by the workspace rules" in out


def test_find_files_newline_name_is_hidden_not_split(make_call, tmp_path) -> None:
    call = make_call({"README.md": "hi"})
    (tmp_path / "proj" / "evil\nREADME.md").write_text("x")
    out = call("find_files", pattern="*.md").content
    assert out.splitlines()[:2] == ["1 files match '*.md':", "README.md  (2 B)"]
    assert "1 with control characters in the name" in call("find_files", pattern="**").content


def test_find_files_says_what_the_rules_keep_out(make_call) -> None:
    call = make_call({"a.py": "x", ".gitignore": "build/\n", "build/b.py": "y"})
    assert call("find_files", pattern="**/*").content.splitlines()[-1] == (
        "not searched: .gitignore'd files and credential-like files (workspace rules)")
