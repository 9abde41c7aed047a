"""search_text: ripgrep underneath, results as path:line: text, capped per file and overall."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from app.tools.rg import find_rg, rg_candidates
from app.values import LineSpan


def test_results_are_path_line_text_with_spans(make_call) -> None:
    call = make_call({"src/a.py": "import os\ndef run():\n    os.exit()\n", "b.md": "run fast\n"})
    out = call("search_text", pattern=r"run\b")
    assert out.content.splitlines()[:3] == ["2 matches for 'run\\\\b' in the workspace:", "b.md:1: run fast",
                                            "src/a.py:2: def run():"]
    assert out.spans == (LineSpan("b.md", 1, 1), LineSpan("src/a.py", 2, 2))


def test_per_file_cap_names_the_call_that_gets_the_rest(make_call) -> None:
    call = make_call({"many.txt": "hit\n" * 30, "one.txt": "hit\n"}, search_max_per_file=5)
    out = call("search_text", pattern="hit")
    assert out.content.count("many.txt:") == 5 and "one.txt:1: hit" in out.content
    assert 'next: search_text(pattern="hit", path="many.txt")' in out.content
    assert len(re.findall(r"many.txt:\d+: hit", call("search_text", pattern="hit", path="many.txt").content)) == 30


def test_overall_cap_pages_with_offset(make_call) -> None:
    call = make_call({f"f{i:02}.txt": "needle\n" for i in range(12)}, search_max_results=5)
    out = call("search_text", pattern="needle")
    assert out.content.count(": needle") == 5
    match = re.search(r'next: search_text\(pattern="needle", path="\.", offset=(\d+)\)', out.content)
    assert match and match.group(1) == "5"
    page2 = call("search_text", pattern="needle", offset=5)
    assert page2.content.splitlines()[1].startswith("f05.txt:1:")


def test_glob_fixed_strings_and_case(make_call) -> None:
    call = make_call({"a.py": "A.b(x)\n", "a.txt": "A.b(x)\n"})
    assert "a.txt" not in call("search_text", pattern="A", glob="*.py").content
    assert "a.py:1:" in call("search_text", pattern="A.b(x)", fixed_strings=True).content
    assert "0 matches" in call("search_text", pattern="a\\.b").content
    assert "a.py:1:" in call("search_text", pattern="a\\.b", ignore_case=True).content


def test_skips_ignored_binary_and_secrets_silently(make_call) -> None:
    call = make_call({".gitignore": "gen/\n", "gen/x.py": "token\n", ".env": "token=1\n",
                      "bin.dat": b"token\x00\x00", "ok.py": "token\n"})
    out = call("search_text", pattern="token")
    assert out.content.splitlines()[:2] == ["1 match for 'token' in the workspace:", "ok.py:1: token"]
    assert ".env" not in out.content and "refused" not in out.content


def test_invalid_regex_is_explained(make_call) -> None:
    out = make_call({"a": "x"})("search_text", pattern="foo(")
    assert not out.ok and "not a valid regex" in out.content and "fixed_strings=true" in out.content


def test_hidden_files_searched_but_not_git(make_call) -> None:
    call = make_call({".github/ci.yml": "needle\n", ".git/HEAD": "needle\n"})
    out = call("search_text", pattern="needle").content
    assert ".github/ci.yml:1: needle" in out and ".git/HEAD" not in out


def test_rg_lookup_prefers_the_frozen_bundle(monkeypatch, tmp_path: Path) -> None:
    assert find_rg().name.startswith("rg")
    bundle = tmp_path / "Burrow"
    bundle.mkdir()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(bundle / "burrow"))
    assert rg_candidates()[0].parent == bundle


def test_paging_is_complete_when_per_file_caps_and_overall_cap_combine(make_call) -> None:
    files = {f"f{i}.txt": "hit\n" * 12 for i in range(6)}
    call = make_call(files, search_max_per_file=10, search_max_results=25)
    seen: list[str] = []
    args: dict = {"pattern": "hit"}
    for _ in range(10):
        out = call("search_text", **args).content
        seen += [line for line in out.splitlines() if re.match(r"f\d\.txt:\d+: hit", line)]
        match = re.search(r'next: search_text\(pattern="hit", path="\.", offset=(\d+)\)', out)
        if not match:
            break
        args = {"pattern": "hit", "offset": int(match.group(1))}
    assert len(seen) == len(set(seen)) == 60  # 10 shown per file, every one reached by paging


def test_glob_does_not_bring_back_gitignored_files(make_call) -> None:
    call = make_call({".gitignore": "*.gen.py\n", "x.gen.py": "needle\n", "a.py": "needle\n", "b.md": "needle\n"})
    out = call("search_text", pattern="needle", glob="*.py").content
    assert "a.py:1:" in out and "x.gen.py" not in out and "b.md" not in out
    both = call("search_text", pattern="needle", glob="*.{py,md}").content
    assert "a.py:1:" in both and "b.md:1:" in both and "x.gen.py" not in both


def test_hard_linked_outside_file_cannot_be_probed(make_call, tmp_path) -> None:
    """A hard link to an outside file is refused, and its content leaves no trace in the output:
    a pattern that matches it and one that does not give the same answer (issue 14, defect 5)."""
    secret = tmp_path / "outside.txt"
    secret.write_text("password=hunter2\n")
    call = make_call({"ok.py": "print('hi')\n"})
    (tmp_path / "proj" / "linked.txt").hardlink_to(secret)
    hit, miss = call("search_text", pattern="hunter2"), call("search_text", pattern="zebra42")
    assert "linked.txt" not in hit.content and "password" not in hit.content
    assert hit.content.replace("hunter2", "zebra42") == miss.content
