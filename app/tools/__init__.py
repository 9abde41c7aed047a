"""Tool definitions: typed functions with pydantic argument models; schemas are derived from them.

The names are resolved lazily (PEP 562): importing `app.tools.base` for LineSpan runs this file,
and the registry would otherwise pull pydantic, the workspace and settings into every importer
(the GUI needs LineSpan before its window shows, the registry only when a question runs).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.tools.base import LineSpan, ToolOutput
    from app.tools.registry import Tool, ToolRegistry, ToolSpec, default_tools

_HOMES = {"LineSpan": "app.tools.base", "ToolOutput": "app.tools.base", "Tool": "app.tools.registry",
          "ToolRegistry": "app.tools.registry", "ToolSpec": "app.tools.registry",
          "default_tools": "app.tools.registry"}

__all__ = ["LineSpan", "Tool", "ToolOutput", "ToolRegistry", "ToolSpec", "default_tools"]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
