"""How the generic dialect writes one tool call: the candidates measured with SmolLM2-135M.

Each format renders a call, parses it back, and gives its GBNF; rendering and grammar agree
byte for byte, so a turn re-rendered from (name, arguments) is what the model produced.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from app.llm.base import ParsedToolCall
from app.llm.dialects.gbnf import gbnf_literal
from app.llm.dialects.hermes import parse_tagged_json
from app.llm.dialects.markup import call_from_object, calls_from_json_text, decode_json_at

_SLASH = re.compile(r"/([A-Za-z_][\w.-]*) ?")
# A reply that opens with a fenced JSON object: how a model writes its call when nothing
# constrains it (a server that neither parses calls nor applies a grammar, e.g. llama-cpp-python's
# own). Only the fenced object is read, and only as a call: {"name": ..., "arguments": ...}.
_FENCED_OPENING = re.compile(r"```(?:json|JSON)?[ \t]*\n\s*\{")
_FENCED_OBJECT = re.compile(r"```(?:json|JSON)?[ \t]*\n(\{.*?\})\s*```", re.DOTALL)


@dataclass(frozen=True)
class CallFormat:
    name: str
    first_char: str  # an answer may not start with it, so a reply is a call or an answer

    def render(self, name: str, arguments: dict[str, Any]) -> str:
        args = json.dumps(arguments, ensure_ascii=False)
        if self.name == "slash":
            return f"/{name} {args}"
        body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return f"<tool_call>{body}</tool_call>" if self.name == "tagged" else body

    def gbnf(self, name: str, args_rule: str) -> str:
        if self.name == "slash":
            return f"{gbnf_literal('/' + name + ' ')} {args_rule}"
        head = gbnf_literal(f'{{"name": {json.dumps(name)}, "arguments": ')
        call = f'{head} {args_rule} "}}"'
        return f'"<tool_call>" {call} "</tool_call>"' if self.name == "tagged" else call

    def parse(self, text: str) -> ParsedToolCall | None:
        text = text.strip()
        if text.startswith("<tool_call>"):
            calls = parse_tagged_json(text)[1]
        elif text.startswith("{"):
            calls = calls_from_json_text(text)
        elif fenced := _FENCED_OBJECT.match(text):
            calls = _fenced_call(fenced.group(1))
        elif match := _SLASH.match(text):
            decoded = decode_json_at(text, match.end())
            args = decoded[0] if decoded and isinstance(decoded[0], dict) else {}
            raw = text[match.end():decoded[1]].strip() if decoded else text[match.end():].strip()
            calls = [ParsedToolCall(match.group(1), args, raw)]
        else:
            calls = []
        return calls[0] if calls else None


_FENCE_OPENINGS = ("```json\n{", "```JSON\n{", "```\n{")


def may_be_fenced_call(text: str) -> bool:
    """Whether streamed text may still turn out to be a fenced call (held back until the turn
    ends; a fence of code in another language shows at once)."""
    head = text.lstrip()
    return bool(_FENCED_OPENING.match(head)) or any(o.startswith(head) for o in _FENCE_OPENINGS)


def _fenced_call(body: str) -> list[ParsedToolCall]:
    """The call in a fenced object only when it is written as one: a name and its arguments (a
    fenced package.json, {"name": "pkg", "version": ...}, stays an answer)."""
    try:
        obj = json.loads(body)
    except ValueError:
        return []
    if not isinstance(obj, dict) or not ({"arguments", "parameters"} & obj.keys()):
        return []
    call = call_from_object(obj)
    return [call] if call is not None else []


FORMATS = {f.name: f for f in (CallFormat("json", "{"), CallFormat("tagged", "<"),
                               CallFormat("slash", "/"))}
