"""Every path-taking tool against every attack, under both confinement strategies. Zero leaks, zero hangs."""

from __future__ import annotations

import time

import pytest

from app.settings import Settings

from ._bounded import run_bounded
from .conftest import Arena, make_executor

pytestmark = pytest.mark.timeout(60)

LEXICAL_ATTACKS = (
    "/etc/passwd", "//etc/passwd", "../outside/secret.txt", "src/../../outside/secret.txt", "./../outside",
    "src/./../..", "..", "~", "~/.bashrc", "~root/.ssh/id_rsa", "src\\..\\..\\outside", "a\x00b.py",
    "src/\nsecret.py", "esc\x1b[31m.py", "ctl\nname.py", "tab\there.py", "x" * 5000, "C:/Windows/win.ini",
    "a/" * 600 + "b.py", "\udcff.py",
)
SYMLINK_ATTACKS = (
    "abs_link.py", "rel_link.py", "chain1.py", "chain3.py", "loop_a.py", "self_loop.py", "dangling.py",
    "proc_root.py", "proc_cwd.py", "reenter.py", "sibling.py", "devzero.py", "src/pkg/up.py",
    "outdir/secret.py", "outdir/sub/secret.py", "outdir_abs/secret.py", "outdir", "outdir_abs", "procroot",
)
SPECIAL_ATTACKS = ("hard.py", "fifo.py")
ALL_ATTACKS = LEXICAL_ATTACKS + SYMLINK_ATTACKS + SPECIAL_ATTACKS
TOOL_CALLS = (
    ("read_file", lambda p: {"path": p}),
    ("file_outline", lambda p: {"path": p}),
    ("list_dir", lambda p: {"path": p}),
    ("search_text", lambda p: {"pattern": "BURROW|leak|def", "path": p}),
)


def _with_proc_root(arena: Arena, attack: str) -> str:
    return f"procroot{arena.outside}/secret.py" if attack == "procroot" else attack


@pytest.mark.parametrize("attack", ALL_ATTACKS, ids=repr)
@pytest.mark.parametrize("tool,make_args", TOOL_CALLS, ids=[t for t, _ in TOOL_CALLS])
def test_attack_is_refused_without_leak(executor, arena: Arena, tool, make_args, attack) -> None:
    path = _with_proc_root(arena, attack)
    outcome = run_bounded(executor, tool, make_args(path))
    assert not arena.leaked(outcome.content, given=path), outcome.content
    assert outcome.ok is False, f"{tool}({attack!r}) was accepted: {outcome.content[:300]}"
    assert outcome.content.strip(), "a refusal must say why"


@pytest.mark.parametrize("attack", ("abs_link.py", "rel_link.py", "outdir", "proc_root.py", "sibling.py"))
def test_refusal_names_only_workspace_relative_path(executor, arena: Arena, attack) -> None:
    outcome = run_bounded(executor, "read_file", {"path": attack})
    assert attack in outcome.content and "outside" in outcome.content
    assert str(arena.ws) not in outcome.content


def test_hard_link_refused_unless_allowed(arena: Arena) -> None:
    _, strict = make_executor(arena.ws, Settings(), "openat2")
    assert "hard link" in strict.run("1", "read_file", '{"path": "hard.py"}').content
    _, lenient = make_executor(arena.ws, Settings(allow_hardlinks=True), "openat2")
    assert arena.marker in lenient.run("2", "read_file", '{"path": "hard.py"}').content  # the user's choice


def test_fifo_refused_at_once_not_waited_on(executor, arena: Arena) -> None:
    started = time.monotonic()
    outcome = run_bounded(executor, "read_file", {"path": "fifo.py"}, seconds=5)
    assert "pipe" in outcome.content and outcome.ok is False
    assert time.monotonic() - started < 5


def test_sparse_10gib_file_reports_size_without_reading_it(executor, arena: Arena) -> None:
    started = time.monotonic()
    outcome = run_bounded(executor, "read_file", {"path": "sparse.py"})
    assert outcome.ok and "binary file" in outcome.content and "10.0 GiB" in outcome.content
    search = run_bounded(executor, "search_text", {"pattern": "x", "path": "sparse.py"})
    assert not search.ok and "binary file (binary data, 10.0 GiB)" in search.content
    whole = run_bounded(executor, "search_text", {"pattern": "x = "})
    assert whole.ok and "oneline.py:1:" in whole.content and "ran out of time" not in whole.content
    assert time.monotonic() - started < 4


def test_one_mebibyte_single_line_is_cut_and_says_so(executor, arena: Arena, settings: Settings) -> None:
    outcome = run_bounded(executor, "read_file", {"path": "oneline.py"})
    assert outcome.ok
    assert len(outcome.content) < settings.read_max_bytes
    assert "line cut: 1048582 chars" in outcome.content
    search = run_bounded(executor, "search_text", {"pattern": "aaaa", "path": "oneline.py"})
    assert "oneline.py:1:" in search.content and len(search.content) < settings.read_max_bytes


def test_control_char_names_are_hidden_and_counted(executor, arena: Arena) -> None:
    listing = run_bounded(executor, "list_dir", {"path": "."})
    assert "3 with control characters in the name" in listing.content
    assert not arena.leaked(listing.content)
    search = run_bounded(executor, "search_text", {"pattern": "BURROW-LEAK"})
    assert search.ok and "0 matches" in search.content and not arena.leaked(search.content)


def test_listing_marks_outward_symlinks_without_revealing_targets(executor, arena: Arena) -> None:
    listing = run_bounded(executor, "list_dir", {"path": ".", "depth": 3})
    assert "abs_link.py  (symlink that leads outside the workspace or nowhere (refused))" in listing.content
    assert "reenter.py" in listing.content and "outside/" not in listing.content
    assert not arena.leaked(listing.content)
    found = run_bounded(executor, "find_files", {"pattern": "**/*.py"})
    assert "src/pkg/real.py" in found.content and "secret" not in found.content


@pytest.mark.parametrize("pattern", ("../outside/*", "/etc/*", "~/*", "**/../../*", "a\x00b", "outdir/*"))
def test_find_files_never_escapes(executor, arena: Arena, pattern) -> None:
    outcome = run_bounded(executor, "find_files", {"pattern": pattern})
    assert not arena.leaked(outcome.content)
    assert "secret" not in outcome.content


def test_search_whole_workspace_never_shows_outside_lines(executor, arena: Arena) -> None:
    outcome = run_bounded(executor, "search_text", {"pattern": "BURROW-LEAK|leak|inside"})
    assert outcome.ok and not arena.leaked(outcome.content)
    assert "src/pkg/real.py:2:" in outcome.content and "README.md:2:" in outcome.content
