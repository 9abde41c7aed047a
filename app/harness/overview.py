"""The reads for a question about the whole project ("what does this project do?"): the README's
start without its badges and its install or contributing sections, or, with no README, the
manifest's start and the entry module's (see first_prompt, which puts them before the chunks)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from app.harness import prompts
from app.harness.calls import CallOutcome
from app.harness.citations import merge_spans
from app.index.intent import (
    ENTRY_NAMES,
    IMPORT_WAYS,
    MANIFEST_NAMES,
    README_NAMES,
    entry_fields,
    entry_key,
    is_copy_path,
    is_readme,
    is_test_path,
)
from app.settings import Settings
from app.tools.base import TextHit
from app.tools.calls_text import call_text, cut_note
from app.values import LineSpan

Shown = tuple[str, tuple[LineSpan, ...], tuple[TextHit, ...]]  # a read's text, the spans and lines it shows


def overview_calls(settings: Settings, files: tuple[str, ...]) -> list[tuple[str, dict[str, Any], str]]:
    """The README's start: where a project says what it is (for questions about the whole). With
    no README (a package of a monorepo, private code), the manifest's start (its name and
    description) and the entry module's (its doc comment, its exports): a user's check on
    @tanstack/form-core, whose package ships no README, got a first prompt with nothing in it."""
    if settings.intro_readme_lines <= 0:
        return []
    by_lower = {p.lower(): p for p in files if "/" not in p}  # express ships Readme.md
    readme = next((by_lower[n.lower()] for n in README_NAMES if n.lower() in by_lower), None)
    if readme:
        return [_read(readme, max(settings.intro_readme_lines, README_READ_LINES))]
    return [_read(p, settings.intro_readme_lines) for p in (_manifest(by_lower), _entry_module(files)) if p]


# package.json's fields that say which file an import gets: "main", "module", "browser", "types",
# and the export map's "." with its conditions ("import", "require", "default", "node" ...).
_ENTRY_FIELDS = r'^\s*"(?:main|module|browser|types|typings|exports|import|require|default|node|\.)"\s*:'
ENTRY_READ_LINES = 40  # of the entry module: @noble/hashes' src/index.ts throws on its 33rd line


def entry_calls(files: tuple[str, ...]) -> list[tuple[str, dict[str, Any], str]]:
    """For a question about importing the package (intent.imports_the_package): the manifest's
    entry fields (then the module they name: entry_read), or, with no package.json, the entry
    module's start (a Python package's `__init__.py`)."""
    if "package.json" in files:
        return [("search_text", {"pattern": _ENTRY_FIELDS, "path": "package.json"},
                 prompts.ENTRY_FIELDS_HEADER.format(path="package.json"))]
    return [_read(entry, ENTRY_READ_LINES)] if (entry := _entry_module(files)) else []


def entry_read(hits: Sequence[TextHit], files: tuple[str, ...]) -> tuple[str, dict[str, Any], str] | None:
    """The start of the module package.json's entry fields give `require` (else `import`):
    flatted's `"main": "./cjs/index.js"`, not the browser bundle `index.js` beside it; else of the
    package's entry module."""
    fields = {key: file for key, (file, _) in entry_fields((hit.text, None) for hit in hits).items()}
    present = set(files)
    entry = next((file for way in IMPORT_WAYS if (key := entry_key(fields, way)) and (file := fields[key]) in present),
                 None) or _entry_module(files)
    return _read(entry, ENTRY_READ_LINES) if entry else None


def _read(path: str, lines: int) -> tuple[str, dict[str, Any], str]:
    return "read_file", {"path": path, "max_lines": lines}, prompts.README_HEADER.format(path=path)


def _manifest(top_level: dict[str, str]) -> str | None:
    return next((top_level[n.lower()] for n in MANIFEST_NAMES if n.lower() in top_level), None)


def _entry_module(files: tuple[str, ...]) -> str | None:
    """The package's entry module: a known entry name, else the shallowest `__init__.py` outside
    tests and build copies (a Python package's docstring)."""
    present = set(files)
    if found := next((n for n in ENTRY_NAMES if n in present), None):
        return found
    inits = [f for f in files if f.rsplit("/", 1)[-1] == "__init__.py" and not is_test_path(f)
             and not is_copy_path(f)]
    return min(inits, key=lambda f: (f.count("/"), f), default=None)


def start_of(outcome: CallOutcome, shown_lines: int) -> Shown | None:
    """A file's start as read_file showed it (text, spans, lines), less the lines that are only markup: a README's
    badges and logo (`[![npm version](https://img.shields.io/...)](...)`, `.. image:: ...`,
    `<p align="center"><img ...></p>`) say nothing of what the project is and cost ~50 tokens
    each (a user's check on @reduxjs/toolkit: three badge lines before its one-line summary). Of a
    README, read further, its sections on installing, building or crediting it are left out too,
    and the first `shown_lines` lines of the rest are shown."""
    hits, content = outcome.hits, outcome.content.strip()
    if not hits:
        return (content, outcome.spans, hits) if content else None
    out = {h.span.start_line for h in hits if _markup_only(h.text)}
    path = hits[0].span.path
    after = 0  # the first line past those shown, when the README goes on
    if is_readme(path.rsplit("/", 1)[-1]):
        out |= _aside_sections(hits)
        left = [h.span.start_line for h in hits if h.span.start_line not in out]
        if len(left) > shown_lines:
            after = left[shown_lines]
            out |= {h.span.start_line for h in hits if h.span.start_line >= after}
    kept = tuple(h for h in hits if h.span.start_line not in out)
    if not any(h.text.strip() for h in kept):
        return None
    if not out:
        return content, outcome.spans, hits
    rows = [row for row in content.splitlines()
            if not ((n := _ROW_NUMBER.match(row)) and int(n.group(1)) in out)
            and not (after and row.startswith(_CUT_PREFIX))]
    if after:
        rows.append(cut_note(f"showed the start of {path}", call_text("read_file", path=path, start_line=after)))
    return "\n".join(rows), merge_spans(h.span for h in kept), kept


_ROW_NUMBER = re.compile(r"^\s*(\d+)\| ")
_CUT_PREFIX = cut_note("", "").split(" ", 1)[0]
README_READ_LINES = 120  # a README's lines read, of which intro_readme_lines are shown
# Sections of a README about getting, building or crediting the project, not what it is (a user's
# check on @reduxjs/toolkit: its start is "Installation", and the 1.5B said it was "a Redux Toolkit
# + TypeScript template" from the install command; its "Purpose" comes after).
_ASIDE = re.compile(r"^\W*(?:install(?:ation|ing)?|getting started|get started|quick ?start|setup|set up|"
                    r"requirements|prerequisites|documentation|docs|contribut\w*|licen[cs]e|changelog|"
                    r"support(?:ers)?|sponsors?|backers|table of contents|contents|development|testing|"
                    r"tests|building|build|credits|authors|acknowledge?ments?|security|status|badges)\W*$",
                    re.IGNORECASE)


def _aside_sections(hits: Sequence[TextHit]) -> set[int]:
    """The lines of the README sections _ASIDE names: from such a heading (markdown `## Install`,
    or rst's title over a line of `=`, `-`, `~`) to the next heading of the same or a higher level."""
    heads: list[tuple[int, int, str]] = []  # (index, level, title)
    rst_levels: list[str] = []
    fenced = False
    for i, hit in enumerate(hits):
        text = hit.text.rstrip()
        if re.match(r"^\s*(?:```|~~~)", text):
            fenced = not fenced
        if fenced:  # a shell comment in a code block is no heading
            continue
        if found := re.match(r"^(#{1,6})\s+(.*?)\s*#*$", text):
            heads.append((i, len(found.group(1)), found.group(2)))
        elif i and re.fullmatch(r"([=\-~^*+#])\1{2,}", text) and hits[i - 1].text.strip() \
                and not re.fullmatch(r"([=\-~^*+#])\1*", hits[i - 1].text.strip()):
            if text[0] not in rst_levels:
                rst_levels.append(text[0])
            heads.append((i - 1, rst_levels.index(text[0]) + 1, hits[i - 1].text.strip()))
    out: set[int] = set()
    for at, (start, level, title) in enumerate(heads):
        if not _ASIDE.match(title):
            continue
        end = next((s for s, lvl, _ in heads[at + 1:] if lvl <= level), len(hits))
        out.update(h.span.start_line for h in hits[start:end])
    return out


_MARKUP = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])"  # a markdown image, inline or by reference
                     r"|\[\s*\]\s*(?:\([^)]*\)|\[[^\]]*\])"  # the link around it, once emptied
                     r"|<[^>]*>"  # an HTML tag
                     r"|^\s*\.\. (?:image|figure|\|[^|]*\|\s*image)::.*|^\s*:(?:target|alt|width|height|align):.*")


def _markup_only(text: str) -> bool:
    """A line that is nothing but images, links around them, HTML tags or rst image directives
    (a fence's closing ``` or a rule is not: nothing in it is markup to take out)."""
    rest = text
    for _ in range(3):  # an image, then the link it sat in
        rest = _MARKUP.sub("", rest)
    return rest != text and not re.search(r"[A-Za-z0-9]", rest)
