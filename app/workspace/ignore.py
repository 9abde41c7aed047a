""".gitignore rules (through pathspec's GitIgnoreSpec, which follows git's own matching, including
its edge cases) and the path globs find_files takes.

Rules of a nested .gitignore apply beneath its folder; a deeper file's rule wins over a shallower
one, and within a file the last matching rule wins, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

# Tried in order, so `**/` wins over `**`, and `**` over `*`.
_GLOB_WILDCARDS = (("**/", "(?:.*/)?"), ("**", ".*"), ("*", "[^/]*"), ("?", "[^/]"))


def _glob_to_regex(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        piece, i = _glob_token(glob, i)
        out.append(piece)
    return "".join(out)


def _glob_token(glob: str, i: int) -> tuple[str, int]:
    """The regex for the glob token starting at `i`, and the index just after that token."""
    for token, regex in _GLOB_WILDCARDS:
        if glob.startswith(token, i):
            return regex, i + len(token)
    if glob[i] == "[":
        return _glob_class(glob, i)
    if glob[i] == "\\" and i + 1 < len(glob):
        return re.escape(glob[i + 1]), i + 2
    return re.escape(glob[i]), i + 1


def _glob_class(glob: str, i: int) -> tuple[str, int]:
    """A `[...]` class (`[!...]`, `[^...]` negated) at `i`; a `[` with no closing `]` is a literal."""
    end = glob.find("]", i + 2)
    if end == -1:
        return re.escape("["), i + 1
    body = glob[i + 1:end].replace("\\", "\\\\")
    return ("[^" + body[1:] + "]" if body[:1] in "!^" and body else "[" + body + "]"), end + 1


def glob_regex(glob: str) -> re.Pattern[str]:
    """A path glob (`**/*.py`, `src/*.ts`) as a regex over a whole relative path."""
    return re.compile(_glob_to_regex(glob) + r"\Z", re.DOTALL)


def parse_gitignore(text: str) -> GitIgnoreSpec:
    return GitIgnoreSpec.from_lines(text.splitlines())


@dataclass(frozen=True)
class IgnoreLayer:
    """The rules of one .gitignore and the folder (relative, '' for root) they apply beneath."""

    base: str
    rules: GitIgnoreSpec


def is_ignored(layers: tuple[IgnoreLayer, ...], rel: str, is_dir: bool) -> bool:
    ignored = False
    for layer in layers:
        if layer.base and not rel.startswith(layer.base + "/"):
            continue
        local = rel[len(layer.base) + 1:] if layer.base else rel
        verdict = layer.rules.check_file(local + "/" if is_dir else local).include
        if verdict is not None:
            ignored = verdict
    return ignored
