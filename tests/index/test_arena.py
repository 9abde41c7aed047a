"""search_code in the workspace tests' attack arena: symlinks out, /proc links, a hard link, a FIFO,
a 10 GB sparse file and names with control characters. Nothing outside may reach the index."""

from __future__ import annotations

import pytest

from app.settings import Settings
from tests.workspace._bounded import run_bounded
from tests.workspace.conftest import STRATEGIES, Arena, _build, make_executor

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Arena:
    return _build(tmp_path_factory.mktemp("arena"))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_search_code_never_shows_what_lies_outside(arena: Arena, strategy: str) -> None:
    ws, executor = make_executor(arena.ws, Settings(), strategy)
    with ws:
        found = run_bounded(executor, "search_code", {"query": "real inside"})
        assert found.ok and "src/pkg/real.py:1-2  function real" in found.content
        for query in ("leak", "secret", "hard_src x", "BURROW LEAK MARKER", "return"):
            outcome = run_bounded(executor, "search_code", {"query": query})
            assert not arena.leaked(outcome.content, given=query), outcome.content
            assert all(s.path in ("README.md", "src/pkg/real.py") for s in outcome.spans)
