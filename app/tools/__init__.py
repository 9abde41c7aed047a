"""Tool definitions: typed functions with pydantic argument models; schemas are derived from them."""

from app.tools.base import LineSpan, ToolOutput
from app.tools.registry import Tool, ToolRegistry, ToolSpec, default_tools

__all__ = ["LineSpan", "Tool", "ToolOutput", "ToolRegistry", "ToolSpec", "default_tools"]
