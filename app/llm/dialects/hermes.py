"""<tool_call>{json}</tool_call>: Hermes 2 Pro/3, Qwen2.5, Qwen3, Granite 4, SmolLM3."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from app.llm.base import Message, ParsedToolCall, ToolSpec
from app.llm.dialects import prompts
from app.llm.dialects.gbnf import BASE_RULES, arguments_rules, gbnf_literal
from app.llm.dialects.markup import calls_from_json_text, parse_loose_arguments
from app.llm.dialects.normalize import with_system_text
from app.llm.dialects.template import TemplateDialect

# Qwen2.5-Coder sometimes wraps a call in <tools> (the tag its template puts around the tool
# list) instead of <tool_call>: a near-miss with only one reading, so it is accepted.
_BLOCK = re.compile(r"<(tool_call|tools)>(.*?)(?:</\1>|$)", re.DOTALL)
_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*(?:```)?$", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"\s*,\s*"(?:arguments|parameters)"\s*:\s*(.*)', re.DOTALL)


def parse_tagged_json(text: str) -> tuple[str, list[ParsedToolCall]]:
    """Calls in <tool_call> blocks (last closing tag optional); the text outside is content."""
    calls = [c for _, body in _BLOCK.findall(text) for c in _block_calls(body)]
    return _BLOCK.sub("", text), calls


def bare_json_calls(text: str) -> list[ParsedToolCall]:
    """Calls when the whole reply is one call object or a list of them, else none."""
    body = _FENCED.sub(r"\1", text.strip())
    if not body.startswith(("{", "[")):
        return []
    calls = calls_from_json_text(body)
    return calls if calls and body.rstrip().endswith(("}", "]")) else []


def _block_calls(body: str) -> list[ParsedToolCall]:
    calls = calls_from_json_text(body)
    if calls or not body.strip():
        return calls
    match = _NAME.search(body)  # cut off mid-object: recover name and what arguments parse
    if not match:
        return []
    arguments, raw = parse_loose_arguments(match.group(2).rstrip().removesuffix("}"))
    return [ParsedToolCall(name=match.group(1), arguments=arguments, raw_arguments=raw)]


JSON_OPENINGS = ("{", "[{", "```json")
# text that cannot open a call: not a tag, an object, a list or a code fence (Qwen fences calls)
ANSWER_RULE = "answer ::= [^<{[`\\x00-\\x20] [^\\x00]*"


class HermesDialect(TemplateDialect):
    name = "hermes"
    markers = ("<tool_call>", "<tools>")

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        content, calls = parse_tagged_json(text)
        if calls:
            return content, calls
        bare = bare_json_calls(self.clean(text))  # a reply that is nothing but a call object
        return ("", bare) if bare else (content, [])

    def grammar(self, tools: Sequence[ToolSpec], known_paths: Sequence[str] = (),
                force_answer: bool = False, require_tool: bool = False,
                messages: Sequence[Message] = ()) -> str | None:
        """Free output normally (the model's native format); constrained only when the harness
        must have one thing: a forced answer (plain text), or a required call (one schema-valid
        call in the template's own layout, path arguments drawn from the workspace's files)."""
        if force_answer:
            return f"root ::= answer\n{ANSWER_RULE}\n"
        if not (require_tool and tools):
            return None
        rules, calls = [], []
        for tool in tools:
            args_rule, arg_rules = arguments_rules(tool, known_paths)
            rules.extend(arg_rules)
            name = tool.get("function", tool)["name"]
            head = gbnf_literal('<tool_call>\n{"name": ' + json.dumps(name) + ', "arguments": ')
            calls.append(f'{head} {args_rule} "}}" {gbnf_literal(chr(10) + "</tool_call>")}')
        return "root ::= " + " | ".join(f"({c})" for c in calls) + "\n" + "\n".join(rules) + BASE_RULES

    def late_tool_prompt(self, tools: Sequence[ToolSpec]) -> str | None:
        """The template's tool text with one line per tool for the JSON schemas: told late, every
        token of it is evaluated for the turn (the schemas of three tools were ~550 tokens, 10 s)."""
        return prompts.hermes_tool_prompt(tools, compact=True)

    def visible_text(self, raw_so_far: str) -> str:
        shown = super().visible_text(raw_so_far)
        start = shown.lstrip()
        # a reply opening like a JSON object may be a bare call: held back until it is parsed
        if start.startswith(JSON_OPENINGS) or any(o.startswith(start) for o in JSON_OPENINGS if start):
            return ""
        return shown


class SmolLM3Dialect(HermesDialect):
    """SmolLM3 speaks Hermes tool calls, but this (Unsloth) template renders no tools: we add
    the tool list to the system prompt and write calls and results into message text."""

    name = "smollm3"

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        out = [_hermes_text(m) for m in messages]
        return with_system_text(out, prompts.hermes_tool_prompt(tools)) if tools else out


def _hermes_text(msg: Message) -> Message:
    if msg.get("tool_calls"):
        blocks = [json.dumps({"name": c["function"]["name"], "arguments": c["function"]["arguments"]},
                             ensure_ascii=False) for c in msg["tool_calls"]]
        text = "".join(f"<tool_call>\n{b}\n</tool_call>" for b in blocks)
        plain = {k: v for k, v in msg.items() if k != "tool_calls"}
        return {**plain, "content": (msg["content"] + "\n" + text).strip()}
    if msg.get("role") == "tool":
        return {**msg, "content": f"<tool_response>\n{msg['content']}\n</tool_response>"}
    return msg


__all__ = ["HermesDialect", "SmolLM3Dialect", "parse_tagged_json"]
