"""A chunk longer than a hit shows: the lines shown are its first line and those holding the
question's words, not only its start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.harness.calls import ToolExecutor
from app.index import ranking
from app.settings import Settings
from app.workspace import Workspace
from tests.index.conftest import write

# scripts that say "browser" once each, five lines apart, past the first 60 lines; then the field
SCRIPTS = "\n".join(f'    "test:{i}": "aegir test -t browser",' if i in (56, 61, 66, 71, 76) else
                     f'    "lint:{i}": "eslint --rule {i}",' for i in range(80))
# one config chunk of ~95 lines (index_config_max_lines 150), its "browser" field at the end
MANIFEST = f'''{{
  "name": "@acme/crypto",
  "version": "5.0.8",
  "scripts": {{
{SCRIPTS}
    "build": "tsc"
  }},
  "browser": {{
    "./dist/src/hmac/index.js": "./dist/src/hmac/index.browser.js",
    "./dist/src/keys/rsa/index.js": "./dist/src/keys/rsa/index.browser.js"
  }},
  "sideEffects": false
}}
'''
FILES = {"package.json": MANIFEST, "src/hmac/index.ts": "export function create (hash: string) {\n  return hash\n}\n"}
QUESTION = "Which modules are swapped for browser-specific implementations when I bundle it?"
BROWSER = MANIFEST.splitlines().index('  "browser": {') + 1  # its line number


def test_a_long_chunk_shows_its_first_line_and_the_lines_holding_the_question_s_words(make_index) -> None:
    index = make_index(FILES)
    index.refresh()
    (hit,) = [h for h in index.search(QUESTION, 3) if h.path == "package.json"]
    assert hit.end_line - hit.start_line + 1 > Settings().index_hit_max_lines
    assert hit.focus[0] == 1 and len(hit.focus) == Settings().index_hit_max_lines
    assert {BROWSER, BROWSER + 1, BROWSER + 2} <= set(hit.focus)
    assert list(hit.focus) == sorted(hit.focus)


def test_a_long_chunk_whose_words_are_near_its_start_shows_its_start(make_index) -> None:
    index = make_index(FILES)
    index.refresh()
    (hit,) = [h for h in index.search("What is the package's name and version?", 3) if h.path == "package.json"]
    assert hit.focus == ()


def test_search_code_shows_the_focused_lines_with_the_gap_marked(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    with Workspace(write(tmp_path / "ws", FILES), settings) as ws:
        out = ToolExecutor(ws, settings).run("c1", "search_code", json.dumps({"query": QUESTION}))
        assert out.ok, out.content
        shown = {h.span.start_line for h in out.hits if h.span.path == "package.json"}
        assert 1 in shown and BROWSER + 1 in shown and len(shown) == settings.index_hit_max_lines
        block = out.content.split("package.json:1-")[1].split("\n\n")[0].splitlines()
        assert any(line.startswith(f"{BROWSER + 1}| ") for line in block)
        assert block[1].startswith(" 1| {") and any(line.strip() == "…" for line in block)  # a gap, marked
        assert "read_file(path=" in block[-1]
        # the rule off: only the chunk's first lines, and the browser field never shown
        monkeypatch.setattr(ranking, "FOCUS_CONTEXT", 10_000)
        before = ToolExecutor(ws, settings).run("c2", "search_code", json.dumps({"query": QUESTION}))
        assert BROWSER + 1 not in {h.span.start_line for h in before.hits if h.span.path == "package.json"}
