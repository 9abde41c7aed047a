""".gitignore rules (through pathspec's GitIgnoreSpec, which follows git's own matching, including
its edge cases) and the path globs find_files takes.

Rules of a nested .gitignore apply beneath its folder; a deeper file's rule wins over a shallower
one, and within a file the last matching rule wins, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pathspec import GitIgnoreSpec


def _glob_to_regex(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = glob[i + 1:end].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body[:1] in "!^" and body else "[" + body + "]")
                i = end
        elif ch == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


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
