"""Every prompt text the dialects add, in one place.

The generic dialect's wording was chosen by measurement with SmolLM2-135M (docs/dialects.md):
a short tool list with one worked example and a closing "read first" line, calls wrapped in
<tool_call> tags, and tool results handed back as a plain user turn that names what was read
and restates the question.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from app.llm.base import ToolSpec

# -- native-format families whose template renders no tool list --------------------------------

def hermes_tool_prompt(tools: Sequence[ToolSpec], compact: bool = False) -> str:
    """Qwen2.5's own tool text; `compact`: each tool as `- name(arg, arg?): what it does`."""
    listing = "\n".join(tool_line(t) if compact else json.dumps(t, ensure_ascii=False) for t in tools)
    return ("### Tools\n\nYou may call one or more functions to assist with the user query.\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n\n"
            f"<tools>\n{listing}\n</tools>\n\nFor each function call, return a json object with "
            "function name and arguments within <tool_call></tool_call> XML tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')


def deepseek_tool_prompt(tools: Sequence[ToolSpec]) -> str:
    listing = "\n".join(json.dumps(t.get("function", t), ensure_ascii=False) for t in tools)
    return ("You can call these functions:\n" + listing + "\n\nTo call one, write: "
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n"
            "{ARGUMENTS}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")


# -- the generic dialect -----------------------------------------------------------------------

GENERIC_TOOL_INTRO = (
    "You answer questions about the user's files. You cannot see them unless you read them.\n"
    "To use a tool, reply with only the call, on one line, like this:\n{example}\n"
    "When you have what you need, reply with the answer in plain words.\n\nTools:\n{listing}\n"
    "Always read the file that holds the answer first.")

GENERIC_ANSWER_NUDGE = "Answer the question now, using the text above: {question}"

RESULT_TITLES: dict[str, str] = {  # how a small model is told what it is looking at
    "read_file": "Contents of {path}:",
    "search_text": "Search results for {pattern}:",
    "list_dir": "Files in {path}:",
    "search_code": "Code found for {query}:",
    "find_files": "Files matching {pattern}:",
}
DEFAULT_RESULT_TITLE = "Result of {call}:"


def tool_line(tool: ToolSpec) -> str:
    """`- name(arg, arg?): first line of the description`: short enough for a 135M model."""
    fn = tool.get("function", tool)
    params = fn.get("parameters", {})
    required = set(params.get("required", []))
    args = ", ".join(k if k in required else f"{k}?" for k in params.get("properties", {}))
    summary = (fn.get("description") or "").strip().split("\n")[0]
    return f"- {fn['name']}({args}): {summary}"


def result_title(name: str, arguments: dict[str, Any], call_text: str) -> str:
    template = RESULT_TITLES.get(name, DEFAULT_RESULT_TITLE)
    try:
        return template.format(call=call_text, **{k: str(v) for k, v in arguments.items()})
    except (KeyError, IndexError):
        return DEFAULT_RESULT_TITLE.format(call=call_text)
