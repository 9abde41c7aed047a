"""Property: no generated path, however built, yields content from outside the workspace."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Arena

pytestmark = pytest.mark.timeout(120)

SEGMENTS = (
    "..", ".", "", "~", "src", "pkg", "real.py", "README.md", "outdir", "outdir_abs", "procroot", "abs_link.py",
    "rel_link.py", "chain1.py", "loop_a.py", "reenter.py", "sibling.py", "up.py", "secret.py", "secret.txt",
    "sub", "ws", "ws_evil", "outside", "proc", "self", "root", "cwd", "fd", "hard.py", "fifo.py", "devzero.py",
    "dev", "zero", "etc", "passwd", "tmp", "\\", "\x00", "\n",
)
segment = st.one_of(st.sampled_from(SEGMENTS), st.text(max_size=6))
paths = st.builds(lambda lead, parts: lead + "/".join(parts),
                  st.sampled_from(("", "/", "./", "//", "~/")), st.lists(segment, min_size=1, max_size=8))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=st.one_of(paths, st.text(max_size=40)))
def test_no_generated_path_reads_outside(executor, arena: Arena, path: str) -> None:
    for tool in ("read_file", "list_dir", "file_outline"):
        outcome = executor.run("p", tool, json.dumps({"path": path}))
        assert not arena.leaked(outcome.content, given=path), (tool, path, outcome.content)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=paths)
def test_no_generated_path_searches_outside(executor, arena: Arena, path: str) -> None:
    outcome = executor.run("p", "search_text", json.dumps({"pattern": "BURROW|leak", "path": path}))
    assert not arena.leaked(outcome.content, given=path), (path, outcome.content)
