"""Chunks for everything that is not parsed code: docs by section, config whole, other text in
overlapping windows. `chunk_file` picks the chunker for a path."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.index.code_chunks import code_chunks, spans
from app.index.definitions import parse_definitions
from app.index.languages import language_for
from app.index.values import Chunk, ChunkKind


@dataclass(frozen=True)
class ChunkLimits:
    """The index settings the chunkers need (see Settings.index_*)."""

    window: int  # lines per window of plain text and module-level code
    overlap: int
    max_lines: int  # a definition or section longer than this is split into windows
    config_lines: int  # a config file up to this long is one chunk


_MANIFESTS = {
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "package.json",
    "go.mod",
    "cargo.toml",
    "tox.ini",
    "manifest.in",
    "makefile",
    "dockerfile",
    "requirements.txt",
    "pipfile",
    "gemfile",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "cmakelists.txt",
    "meson.build",
    "tsconfig.json",
    ".pre-commit-config.yaml",
    ".gitlab-ci.yml",
    ".travis.yml",
    "noxfile.py",
    "deno.json",
    "composer.json",
    "mix.exs",
    "pytest.ini",
    ".editorconfig",
    ".flake8",
}
_LICENSES = ("license", "licence", "copying", "notice", "authors", "contributors", "codeowners")
_CONFIG_EXT = (
    ".toml",
    ".ini",
    ".cfg",
    ".yaml",
    ".yml",
    ".json",
    ".conf",
    ".properties",
    ".env.example",
)
_MARKDOWN_EXT = (".md", ".markdown", ".mdx")
_RST_EXT = (".rst", ".txt", ".rest")
_TABLE = re.compile(r"^\s*\[+([^\]\n]+)\]+\s*$|^([A-Za-z_][\w.-]*)\s*[:=]", re.MULTILINE)


def chunk_file(rel: str, lines: list[str], limits: ChunkLimits) -> list[Chunk]:
    """The chunks of one file; empty files give none."""
    if not any(line.strip() for line in lines):
        return []
    name = rel.rsplit("/", 1)[-1].lower()
    if _is_config(rel, name) and name != "setup.py" and name != "noxfile.py":
        return config_chunks(rel, lines, limits)
    language = language_for(rel)
    source = "\n".join(lines).encode("utf-8", "replace") if language else b""
    defs = parse_definitions(source, language) if language else None
    if defs is not None:
        return code_chunks(lines, defs, limits.max_lines, limits.window, limits.overlap)
    if name.endswith(_MARKDOWN_EXT):
        return section_chunks(lines, markdown_headings(lines), limits)
    if name.endswith(_RST_EXT):
        headings = rst_headings(lines)
        if headings:
            return section_chunks(lines, headings, limits)
    return spans(lines, 0, len(lines) - 1, ChunkKind.TEXT, "", "", limits.window, limits.overlap)


def _is_config(rel: str, name: str) -> bool:
    if name in _MANIFESTS or name.startswith(_LICENSES) or name.startswith("requirements"):
        return True
    if rel.startswith(".github/") or rel.startswith(".circleci/"):
        return True
    return name.endswith(_CONFIG_EXT)


def config_chunks(rel: str, lines: list[str], limits: ChunkLimits) -> list[Chunk]:
    """A small config file is one chunk named by the file; its tables and keys are its names. A
    longer one with `[table]` headers (TOML, INI, setup.cfg) is cut at its headers, neighbouring
    tables together up to a window: a user's check on structlog, whose 240-line pyproject.toml was
    cut in 40-line windows, one ending at `[project.optional-dependencies]` and the next holding
    its `dev = [...]` without the header ("What packages does pip install structlog[dev] pull in?"
    was answered from CI's workflow)."""
    name = rel.rsplit("/", 1)[-1]
    size = limits.config_lines if len(lines) <= limits.config_lines else limits.window
    tables = _table_rows(lines) if len(lines) > limits.config_lines else []
    pieces = _tables_together(tables, len(lines), size) if tables else [(0, len(lines) - 1)]
    chunks = [c for start, end in pieces for c in spans(lines, start, end, ChunkKind.CONFIG, name, "", size,
                                                        limits.overlap)]
    return [
        Chunk(c.start, c.end, c.kind, c.symbol, c.text, c.doc, _config_names(c.text))
        for c in chunks
    ]


_TABLE_HEADER = re.compile(r"^\[+[^\]\n]+\]+\s*(?:#.*)?$")


def _table_rows(lines: list[str]) -> list[int]:
    """The rows of a TOML or INI file's table headers (`[project.optional-dependencies]`, `[[bin]]`,
    `[options.extras_require]`) at the start of a line; none when it has fewer than two."""
    rows = [row for row, line in enumerate(lines) if _TABLE_HEADER.match(line)]
    return rows if len(rows) >= 2 else []


def _tables_together(rows: list[int], count: int, size: int) -> list[tuple[int, int]]:
    """(first, last) rows of the pieces: what comes before the first header, then each table with
    the tables after it while they fit in `size` lines together (a longer table alone, windowed)."""
    bounds = ([0] if rows[0] > 0 else []) + rows + [count]
    pieces: list[tuple[int, int]] = []
    for start, after in zip(bounds, bounds[1:], strict=False):
        if pieces and after - pieces[-1][0] <= size:
            pieces[-1] = (pieces[-1][0], after - 1)
        else:
            pieces.append((start, after - 1))
    return pieces


def _config_names(text: str) -> tuple[str, ...]:
    found = (m.group(1) or m.group(2) for m in _TABLE.finditer(text))
    return tuple(dict.fromkeys(f.strip().strip('"') for f in found))[:40]


# --- sections -------------------------------------------------------------------------------

Heading = tuple[int, int, str]  # (row, level, title)
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def markdown_headings(lines: list[str]) -> list[Heading]:
    headings: list[Heading] = []
    fenced = False
    for row, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := _ATX.match(line)):
            headings.append((row, len(m.group(1)), m.group(2)))
        elif (
            not fenced
            and row
            and lines[row - 1].strip()
            and re.match(r"^(=+|-+)\s*$", line)
            and not (headings and headings[-1][0] == row - 1)
        ):
            headings.append((row - 1, 1 if line.startswith("=") else 2, lines[row - 1].strip()))
    return headings


def rst_headings(lines: list[str]) -> list[Heading]:
    """Title lines under (and maybe over) a line of one repeated punctuation character; levels go
    by the order in which each style first appears, as docutils does."""
    styles: list[tuple[str, bool]] = []
    headings: list[Heading] = []
    for row in range(1, len(lines)):
        title, under = lines[row - 1].rstrip(), lines[row].rstrip()
        if not title.strip() or not _UNDERLINE.match(under) or len(under) < len(title.strip()):
            continue
        if _UNDERLINE.match(title):
            continue
        over = row >= 2 and lines[row - 2].rstrip() == under
        style = (under[0], over)
        if style not in styles:
            styles.append(style)
        headings.append((row - 2 if over else row - 1, styles.index(style) + 1, title.strip()))
    return headings


def section_chunks(lines: list[str], headings: list[Heading], limits: ChunkLimits) -> list[Chunk]:
    """One chunk per section (long ones split), named by the path of headings above it."""
    starts = [h[0] for h in headings]
    chunks = _preamble(lines, starts, limits)
    trail: list[tuple[int, str]] = []
    for i, (row, level, title) in enumerate(headings):
        trail = [t for t in trail if t[0] < level] + [(level, title)]
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(lines) - 1
        path = " > ".join(t[1] for t in trail)
        chunks += spans(lines, row, end, ChunkKind.SECTION, path, "", limits.max_lines, limits.overlap)
    return [c for c in chunks if c.text.strip()]


def _preamble(lines: list[str], starts: list[int], limits: ChunkLimits) -> list[Chunk]:
    """The lines above the first heading (all of them when there is no heading)."""
    if starts and starts[0] <= 0:
        return []
    end = (starts[0] - 1) if starts else len(lines) - 1
    return spans(lines, 0, end, ChunkKind.SECTION, "", "", limits.max_lines, limits.overlap)
