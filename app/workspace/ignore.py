"""A small .gitignore matcher: enough of gitignore(5) for listing and walking a code tree.

Supported: comments, blank lines, `!` negation, leading `/` anchoring, trailing `/` (directories
only), `*`, `?`, `[...]`, `**` segments, and escaping with `\\`. Rules of a nested .gitignore apply
beneath its folder; later rules win, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


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


def parse_gitignore(text: str) -> tuple[IgnoreRule, ...]:
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _glob_to_regex(line.lstrip("/"))
        prefix = "" if anchored else "(?:.*/)?"
        rules.append(IgnoreRule(re.compile(prefix + body + r"(?:/.*)?\Z", re.DOTALL), negated, dir_only))
    return tuple(rules)


@dataclass(frozen=True)
class IgnoreLayer:
    """The rules of one .gitignore and the folder (relative, '' for root) they apply beneath."""

    base: str
    rules: tuple[IgnoreRule, ...]


def is_ignored(layers: tuple[IgnoreLayer, ...], rel: str, is_dir: bool) -> bool:
    ignored = False
    for layer in layers:
        if layer.base and not rel.startswith(layer.base + "/"):
            continue
        local = rel[len(layer.base) + 1:] if layer.base else rel
        for rule in layer.rules:
            if rule.dir_only and not is_dir and not _matches_parent(rule, local):
                continue
            if rule.regex.match(local):
                ignored = not rule.negated
    return ignored


def _matches_parent(rule: IgnoreRule, local: str) -> bool:
    """A dir-only rule still hides files beneath a matching directory."""
    parent = local.rsplit("/", 1)[0] if "/" in local else ""
    return bool(parent) and bool(rule.regex.match(parent))
