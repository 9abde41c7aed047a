"""Values every tool shares: the lines a result showed (for citations) and the output itself."""

from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True)
class ToolOutput:
    """What a tool returns: the text for the model and the file lines that text showed."""

    content: str
    spans: tuple[LineSpan, ...] = ()
