"""Chunks a developer would recognise, per kind of file."""

from __future__ import annotations

from app.index.chunking import ChunkLimits, chunk_file
from app.index.values import ChunkKind

LIMITS = ChunkLimits(window=10, overlap=2, max_lines=40, config_lines=30)

PY = '''"""Pantry storage."""

import json

MAX_ITEMS = 5000  # beyond this the store is cut


class Store:
    """Where items live."""

    path = "~/.larder"

    # Loading reads the whole file.
    @staticmethod
    def load(name):
        """Load every item."""
        return json.loads(name)

    def save(self, items):
        json.dump(items)


def expiring_soon(days=7):
    return []
'''


def chunk(rel: str, text: str, limits: ChunkLimits = LIMITS):
    return chunk_file(
        rel, text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), limits
    )


def by_symbol(chunks):
    found = {}
    for c in chunks:
        found.setdefault((c.kind, c.symbol), c)
    return found


def test_python_definitions_with_their_comments_docstrings_and_a_class_header() -> None:
    found = by_symbol(chunk("larder/store.py", PY))
    load = found[(ChunkKind.METHOD, "Store.load")]
    assert (load.start, load.end) == (13, 17)  # from the comment above the decorator
    assert "Loading reads" in load.doc and "Load every item" in load.doc
    header = found[(ChunkKind.CLASS, "Store")]
    assert (header.start, header.end) == (8, 11) and "Where items live" in header.doc
    assert (
        found[(ChunkKind.METHOD, "Store.save")].start,
        found[(ChunkKind.METHOD, "Store.save")].end,
    ) == (19, 20)
    assert found[(ChunkKind.FUNCTION, "expiring_soon")].start == 23
    module = found[(ChunkKind.CODE, "")]
    assert (module.start, module.end) == (1, 5) and "MAX_ITEMS" in module.names


TS = """import { x } from "y";

/** Options for a retry. */
export interface RetryOptions {
  delayMs: number;
}

export class Client {
  private base = "";

  // Send one request.
  async send(path: string): Promise<void> {
    return;
  }
}

export const retryDelay = (attempt: number) => attempt * 100;
"""


def test_typescript_classes_methods_interfaces_and_arrow_functions() -> None:
    found = by_symbol(chunk("src/client.ts", TS))
    assert (
        found[(ChunkKind.CLASS, "RetryOptions")].start,
        found[(ChunkKind.CLASS, "RetryOptions")].end,
    ) == (3, 6)
    assert "Options for a retry" in found[(ChunkKind.CLASS, "RetryOptions")].doc
    send = found[(ChunkKind.METHOD, "Client.send")]
    assert (send.start, send.end) == (11, 14) and "Send one request" in send.doc
    assert found[(ChunkKind.FUNCTION, "retryDelay")].start == 17
    assert found[(ChunkKind.CLASS, "Client")].start == 8


def test_javascript_functions() -> None:
    found = by_symbol(chunk("lib/a.js", "// adds\nfunction add(a, b) {\n  return a + b;\n}\n"))
    assert (found[(ChunkKind.FUNCTION, "add")].start, found[(ChunkKind.FUNCTION, "add")].end) == (
        1,
        4,
    )


MD = """Intro line.

# Larder

Tracks a pantry.

## Install

Run pip.

```
# not a heading
```

## Usage
Run it.
"""


def test_markdown_by_section_with_the_heading_path() -> None:
    found = chunk("README.md", MD)
    assert [(c.symbol, c.start, c.end) for c in found] == [
        ("", 1, 1),
        ("Larder", 3, 5),
        ("Larder > Install", 7, 13),
        ("Larder > Usage", 15, 16),
    ]
    assert {c.kind for c in found} == {ChunkKind.SECTION}


RST = """=====
Title
=====

Some text.

Usage
-----

More text.
"""


def test_restructured_text_sections() -> None:
    found = chunk("docs/guide.txt", RST)
    assert [(c.symbol, c.start, c.end) for c in found] == [
        ("Title", 1, 5),
        ("Title > Usage", 7, 10),
    ]


def test_config_files_are_one_chunk_with_their_tables_as_names() -> None:
    text = '[project]\nname = "larder"\n\n[tool.ruff]\nline-length = 100\n'
    (only,) = chunk("pyproject.toml", text)
    assert (only.kind, only.symbol, only.start, only.end) == (
        ChunkKind.CONFIG,
        "pyproject.toml",
        1,
        5,
    )
    assert {"project", "tool.ruff", "name", "line-length"} <= set(only.names)
    (ci,) = chunk(".github/workflows/ci.yml", "on: push\njobs:\n  test: {}\n")
    assert ci.kind is ChunkKind.CONFIG
    (lic,) = chunk("LICENSE", "MIT License\n\nPermission is hereby granted\n")
    assert lic.kind is ChunkKind.CONFIG


def test_other_text_as_overlapping_windows() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 26)) + "\n"
    found = chunk("notes.log", text)
    assert [(c.start, c.end) for c in found] == [(1, 10), (9, 18), (17, 25)]
    assert {c.kind for c in found} == {ChunkKind.TEXT}


def test_a_long_function_is_split_and_keeps_its_name() -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(60))
    found = chunk("big.py", "def big():\n" + body)
    assert (
        [c.symbol for c in found] == ["big", "big"] and found[0].end == 40 and found[1].start == 39
    )


def test_empty_file_has_no_chunks() -> None:
    assert chunk("empty.py", "\n\n") == []


def test_module_level_import_lists_are_their_own_kind() -> None:
    text = ("import os\nfrom pathlib import (\n    Path,\n    PurePath,\n)\nimport sys\n\n\n"
            "def f():\n    pass\n")
    found = chunk("m.py", text)
    assert [(c.kind, c.start, c.end) for c in found] == [
        (ChunkKind.FUNCTION, 9, 10),
        (ChunkKind.IMPORTS, 1, 6),
    ]


SETTINGS = '''from pydantic import BaseModel, Field


class Settings(BaseModel):
    """What a user may set."""

    model_path: str | None = None
    n_ctx: int = Field(8192, ge=512,
                       description="context size in tokens")
    use_mmap: bool = True

    def merged(self, other):
        extra = other.n_ctx
        return extra
'''


def test_a_class_header_names_its_fields_with_defaults() -> None:
    """Burrow asked about its own code ("the default n_ctx?") answered 2048: the field was no name
    the symbol table knew, so the 113-line Settings class ranked below every method using it."""
    header = by_symbol(chunk("app/settings.py", SETTINGS))[(ChunkKind.CLASS, "Settings")]
    assert header.names == ("model_path", "n_ctx", "use_mmap")  # not the call's `description`
    ts = by_symbol(chunk("src/client.ts", TS))[(ChunkKind.CLASS, "Client")]
    assert ts.names == ("base",)


def test_a_long_config_file_is_cut_at_its_tables() -> None:
    """A user's check on structlog: its 240-line pyproject.toml in 40-line windows put
    `[project.optional-dependencies]` at the end of one and its `dev = [...]` in the next."""
    head = "[build-system]\nrequires = ['hatchling']\n\n[project]\nname = 'larder'\n" + "".join(
        f"classifier{n} = 'Topic :: {n}'\n" for n in range(26))
    extras = "[project.optional-dependencies]\ntests = ['pytest']\ndev = ['larder[tests]']\n"
    tools = "".join(f"[tool.t{n}]\n" + "".join(f"k{m} = {m}\n" for m in range(8)) for n in range(16))
    text = head + "\n" + extras + "\n" + tools
    limits = ChunkLimits(window=40, overlap=8, max_lines=120, config_lines=150)  # the settings' defaults
    found = chunk("pyproject.toml", text, limits)
    lines = text.split("\n")
    extras_row = lines.index("[project.optional-dependencies]") + 1
    holding = [c for c in found if c.start <= extras_row <= c.end]
    assert len(holding) == 1 and "dev = ['larder[tests]']" in holding[0].text  # the table whole, with its header
    assert all(a.end < b.start for a, b in zip(found, found[1:], strict=False))  # pieces, not overlapping windows
    assert all(c.end - c.start + 1 <= 40 for c in found)
    assert {"project.optional-dependencies", "dev"} <= set(holding[0].names)
    # a long file with no tables is windowed as before
    plain = "".join(f"key{n} = {n}\n" for n in range(200))
    assert [(c.start, c.end) for c in chunk("settings.ini", plain, limits)][:2] == [(1, 40), (33, 72)]
