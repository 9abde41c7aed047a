"""Values every layer shares: the lines a result showed, message and tool shapes, citation grammar.

This is the bottom layer (beside app.errors): it imports nothing of Burrow and nothing heavy, so
the window, the harness and the tools can all use it before anything else loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]  # {"role": ..., "content": ..., "tool_calls"?: [...], "tool_call_id"?: ...}
ToolSpec = dict[str, Any]  # {"type": "function", "function": {"name", "description", "parameters"}}


@dataclass(frozen=True, order=True)
class LineSpan:
    """Lines start_line..end_line (1-based, inclusive) of a workspace-relative path."""

    path: str
    start_line: int
    end_line: int

    def __str__(self) -> str:
        if self.start_line == self.end_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"



# The one citation grammar (harness and GUI both use it): a path with a folder or an extension,
# optionally `./`-prefixed and in backticks, then :line or :start-end, the end optionally written
# with an en dash, spaces around the dash, or an `L` prefix (`a.py:L3-L9`, models write all of these).
CITATION_RE = re.compile(
    r"(?<![\w/.\-])(?:\./)?(?P<path>(?:[\w@+~.\-]+/)*[\w@+~\-][\w@+~.\-]*\.[A-Za-z][A-Za-z0-9_]*"
    r"|(?:[\w@+~.\-]+/)+[\w@+~.\-]*\w)"
    r":L?(?P<start>\d{1,7})(?:\s?[-\u2013]\s?L?(?P<end>\d{1,7}))?(?![\w])"
)


@dataclass(frozen=True)
class CitationMatch:
    """One `path:line` reference in a text, with where it sits."""

    text: str
    span: LineSpan
    start: int
    end: int


def find_citations(text: str) -> list[CitationMatch]:
    """Every `path:line` or `path:start-end` in text, in order."""
    found = []
    for m in CITATION_RE.finditer(text):
        start = int(m.group("start"))
        end = int(m.group("end") or start)
        span = LineSpan(m.group("path"), start, end)
        found.append(CitationMatch(m.group(0), span, m.start(), m.end()))
    return found
