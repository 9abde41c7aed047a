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
from app.llm.dialects.markup import calls_from_json_text, decode_json_at

_SLASH = re.compile(r"/([A-Za-z_][\w.-]*) ?")


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
        elif match := _SLASH.match(text):
            decoded = decode_json_at(text, match.end())
            args = decoded[0] if decoded and isinstance(decoded[0], dict) else {}
            raw = text[match.end():decoded[1]].strip() if decoded else text[match.end():].strip()
            calls = [ParsedToolCall(match.group(1), args, raw)]
        else:
            calls = []
        return calls[0] if calls else None


FORMATS = {f.name: f for f in (CallFormat("json", "{"), CallFormat("tagged", "<"),
                               CallFormat("slash", "/"))}
