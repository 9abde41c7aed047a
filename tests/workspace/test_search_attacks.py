"""Option injection and catastrophic regexes against search_text: no command runs, nothing hangs."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from app.settings import Settings

from ._bounded import run_bounded
from .conftest import make_executor

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def injection_ws(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    pwned = tmp_path / "pwned"
    (ws / "payload.sh").write_text(f"touch {pwned}\n")
    (ws / "-x").write_text("needle-dash\n")
    (ws / "--pre=sh").write_text("needle-pre\n")
    (ws / "notes.txt").write_text("hello\n" + "x" * 20000 + "\n")
    return ws, pwned


@pytest.mark.parametrize("args", [
    {"pattern": "--pre=sh"}, {"pattern": "--pre=sh", "path": "payload.sh"}, {"pattern": "-f/etc/passwd"},
    {"pattern": "--files"}, {"pattern": "--version"}, {"pattern": "-e"}, {"pattern": "touch", "glob": "--pre=sh"},
    {"pattern": "touch", "path": "--pre=sh"}, {"pattern": "touch", "path": "-x"},
    {"pattern": "touch", "glob": "-L"}, {"pattern": "--search-zip"}, {"pattern": "--no-ignore --pre sh"},
], ids=repr)
def test_option_injection_runs_nothing(injection_ws, args) -> None:
    ws, pwned = injection_ws
    _, ex = make_executor(ws, Settings(), "openat2")
    outcome = run_bounded(ex, "search_text", args)
    assert not pwned.exists(), "a search argument was read as an option and ran a command"
    assert "ripgrep 14" not in outcome.content and "/etc/passwd" not in outcome.content.replace(args["pattern"], "")


def test_dash_named_files_are_searched_as_paths(injection_ws) -> None:
    ws, _ = injection_ws
    _, ex = make_executor(ws, Settings(), "openat2")
    assert "-x:1: needle-dash" in run_bounded(ex, "search_text", {"pattern": "needle", "path": "-x"}).content
    both = run_bounded(ex, "search_text", {"pattern": "needle"}).content
    assert "--pre=sh:1: needle-pre" in both and "-x:1: needle-dash" in both


@pytest.mark.parametrize("pattern", ["(x+x+)+y", "(a|aa)*b", "(.*)*(.*)*(.*)*z", "(x*)*(x*)*(x*)*$^",
                                     "(?:x?){500}x{500}"])
def test_catastrophic_regex_returns_quickly(injection_ws, pattern) -> None:
    ws, _ = injection_ws
    settings = Settings(search_timeout_s=5)
    _, ex = make_executor(ws, settings, "openat2")
    started = time.monotonic()
    outcome = run_bounded(ex, "search_text", {"pattern": pattern}, seconds=settings.search_timeout_s + 5)
    assert time.monotonic() - started < settings.search_timeout_s + 3
    assert outcome.content


def test_oversized_regex_is_explained(injection_ws) -> None:
    ws, _ = injection_ws
    _, ex = make_executor(ws, Settings(), "openat2")
    outcome = run_bounded(ex, "search_text", {"pattern": "(?:a{1000}){1000}"})
    assert outcome.ok is False and "too large" in outcome.content


def test_timeout_kills_the_search_and_says_so(injection_ws) -> None:
    ws, _ = injection_ws
    big = ws / "big"
    big.mkdir()
    # Random letters defeat ripgrep's literal prefilter and thrash its lazy DFA: this pattern, which
    # never matches (\b between two letters), takes about 3 s per file here, so the search cannot end
    # before its deadline even when this process is descheduled for a while.
    letters = bytes(ord("a") + i % 20 for i in range(256))
    rand = random.Random(7)
    for i in range(8):
        body = rand.randbytes(2_000_000).translate(letters)
        (big / f"f{i}.txt").write_bytes(b"\n".join(body[j:j + 999] for j in range(0, len(body), 1000)))
    _, ex = make_executor(ws, Settings(search_timeout_s=0.05), "openat2")
    started = time.monotonic()
    outcome = run_bounded(ex, "search_text", {"pattern": r"[a-j][^u-z]{20}[k-t]\b[a-j]"})
    assert time.monotonic() - started < 5
    assert "ran out of time" in outcome.content
