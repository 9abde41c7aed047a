"""The generic dialect, for templates without tool support (SmolLM2, Gemma 2, Phi-3.5, none).

Tools are described in the system prompt, the reply is constrained by a GBNF grammar to one
call or an answer, a call turn is rendered back as the exact text the grammar let the model
write, and a tool result goes back as a plain user turn that says what was read and restates
the question: a small model answers from text in a user turn far better than from a tool role.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from app.errors import ChatTemplateError
from app.llm.base import Message, ParsedReply, ToolSpec
from app.llm.dialects import prompts
from app.llm.dialects.callformats import FORMATS, CallFormat, may_be_fenced_call
from app.llm.dialects.gbnf import BASE_RULES, PATH_ARGUMENTS, arguments_rules, gbnf_literal
from app.llm.dialects.jinja_env import render_template
from app.llm.dialects.markup import arguments_from, split_think, visible_after_think
from app.llm.dialects.normalize import (
    alternating_turns,
    last_question,
    normalize_messages,
    with_system_text,
)
from app.llm.dialects.template import TemplateDialect

CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
DEFAULT_FORMAT = "tagged"  # best of the three with SmolLM2-135M (docs/dialects.md)
# No answer starts like a call in any format, so a reply is never both.
CALL_STARTS = "".join(f.first_char for f in FORMATS.values())


class GenericDialect(TemplateDialect):
    name = "generic"
    supports_tools = False

    def __init__(self, template: str | None, *, bos_token: str = "", eos_token: str = "",
                 now: Callable[[], datetime] | None = None, call_format: str = DEFAULT_FORMAT,
                 **_: Any) -> None:
        self.call_format: CallFormat = FORMATS[call_format]
        super().__init__(template or CHATML, bos_token=bos_token, eos_token=eos_token, now=now)
        self.template = template
        self.markers = (self.call_format.first_char,)

    # -- rendering -------------------------------------------------------------------------
    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        plain = self._plain_turns(messages)
        return with_system_text(plain, self.tool_prompt(tools)) if tools else plain

    def render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
               add_generation_prompt: bool = True) -> str:
        # Tools are ours to describe: the template itself never sees them.
        prepared = self.prepare(normalize_messages(messages), tools)
        return self._render_faithfully(prepared, add_generation_prompt)

    def _render_faithfully(self, prepared: list[Message], add_generation_prompt: bool) -> str:
        """A template that demands strict alternation refuses some conversations (Gemma 2: any
        system role) or drops a turn (Llama 2: a later system one); then the same text goes as
        user/assistant turns only, keeping a leading system turn where the template takes it."""
        shapes = (prepared, alternating_turns(prepared, keep_system=True),
                  alternating_turns(prepared, keep_system=False))
        for turns in shapes[:-1]:
            try:
                prompt = self._render_prepared(turns, add_generation_prompt)
            except ChatTemplateError:
                continue
            if all(m["content"].strip() in prompt for m in prepared):
                return prompt
        return self._render_prepared(shapes[-1], add_generation_prompt)

    def _render_prepared(self, messages: list[Message], add_generation_prompt: bool) -> str:
        return render_template(self._compiled, messages=messages, tools=None,
                               add_generation_prompt=add_generation_prompt,
                               bos_token=self.bos_token, eos_token=self.eos_token)

    def late_tool_prompt(self, tools: Sequence[ToolSpec]) -> str | None:
        return self.tool_prompt(tools) if tools else None

    def tool_prompt(self, tools: Sequence[ToolSpec]) -> str:
        first = tools[0].get("function", tools[0])
        example_args = {k: _example_value(k, v) for k, v in
                        first.get("parameters", {}).get("properties", {}).items()
                        if k in first.get("parameters", {}).get("required", [])}
        return prompts.GENERIC_TOOL_INTRO.format(
            example=self.call_format.render(first["name"], example_args),
            listing="\n".join(prompts.tool_line(t) for t in tools))

    def _plain_turns(self, messages: list[Message]) -> list[Message]:
        """Call turns as the call's text; each run of tool results as one user turn that
        restates the question asked before it (so earlier turns never change later)."""
        out: list[Message] = []
        calls: dict[str, tuple[str, dict[str, Any]]] = {}
        results: list[str] = []
        question = ""
        for msg in [*messages, {"role": "end"}]:
            if msg.get("role") == "tool":
                results.append(self._result_text(msg, calls))
                continue
            if results:
                out.append(self._results_turn(results, question))
                results = []
            if msg.get("role") == "user":
                question = last_question([msg])
            if msg.get("role") != "end":
                out.append(self._call_turn(msg, calls) if msg.get("tool_calls") else msg)
        return out

    def _call_turn(self, msg: Message, calls: dict[str, tuple[str, dict[str, Any]]]) -> Message:
        texts = []
        for call in msg["tool_calls"]:
            name, args = call["function"]["name"], call["function"]["arguments"]
            calls[call["id"]] = (name, args)
            texts.append(self.call_format.render(name, args))
        return {"role": "assistant", "content": "\n".join(texts)}

    def _result_text(self, msg: Message, calls: dict[str, tuple[str, dict[str, Any]]]) -> str:
        name, args = calls.get(msg["tool_call_id"], (msg.get("name", "tool"), {}))
        title = prompts.result_title(name, args, self.call_format.render(name, args))
        return f"{title}\n{msg['content']}"

    def _results_turn(self, results: list[str], question: str) -> Message:
        nudge = prompts.GENERIC_ANSWER_NUDGE.format(question=question)
        return {"role": "user", "content": "\n\n".join([*results, nudge])}

    # -- parsing and grammar ---------------------------------------------------------------
    def parse(self, raw: str) -> ParsedReply:
        reasoning, rest = split_think(raw, self.opens_reasoning)
        text = self.clean(rest)
        call = self.call_format.parse(text) or next(
            (c for f in FORMATS.values() if (c := f.parse(text)) is not None), None)
        if call is not None:
            return ParsedReply(content="", tool_calls=(call,), reasoning=reasoning)
        return ParsedReply(content=text, reasoning=reasoning)

    def visible_text(self, raw_so_far: str) -> str:
        shown = visible_after_think(raw_so_far, self.opens_reasoning, self.end_markers)
        return "" if shown.startswith(tuple(CALL_STARTS)) or may_be_fenced_call(shown) else shown

    def grammar(self, tools: Sequence[ToolSpec], known_paths: Sequence[str] = (),
                force_answer: bool = False, require_tool: bool = False,
                messages: Sequence[Message] = ()) -> str | None:
        """One call or an answer (only a call when require_tool and a call is possible).
        A file the conversation (`messages`) already read whole (a call with only a path) is not
        offered again: small models otherwise repeat that call forever."""
        if not tools and not force_answer:
            return None  # nothing to choose between; a grammar would only halve the speed
        answer = f'answer ::= [^{_class_escape(CALL_STARTS)}\\x00-\\x20] [^\\x00]*'
        offered = () if force_answer else tools
        rules, calls = self._call_rules(offered, known_paths, _paths_already_read(messages))
        if not calls:
            return f"root ::= answer\n{answer}\n"
        call_rule = "call ::= " + " | ".join(f"({c})" for c in calls)
        root = "root ::= call\n" if require_tool else "root ::= call | answer\n"
        return root + "\n".join([answer, *rules, call_rule]) + BASE_RULES

    def _call_rules(self, tools: Sequence[ToolSpec], known_paths: Sequence[str],
                    read: set[tuple[str, str]]) -> tuple[list[str], list[str]]:
        """The argument rules, and one call rule per tool still worth offering."""
        rules: list[str] = []
        calls: list[str] = []
        for tool in tools:
            fn = tool.get("function", tool)
            paths = _offered_paths(fn, known_paths, read)
            if paths is None:
                continue
            args_rule, arg_rules = arguments_rules(tool, paths)
            rules.extend(arg_rules)
            calls.append(self.call_format.gbnf(fn["name"], args_rule))
        return rules, calls


def _offered_paths(fn: dict[str, Any], known_paths: Sequence[str], read: set[tuple[str, str]]) -> list[str] | None:
    """The paths a call may name; None when the tool needs a path and every known one was read whole."""
    if not _requires_path(fn):
        return list(known_paths)
    paths = [p for p in known_paths if (fn["name"], p) not in read]
    return None if known_paths and not paths else paths


def _requires_path(fn: dict[str, Any]) -> bool:
    return any(k in PATH_ARGUMENTS for k in fn.get("parameters", {}).get("required", []))


def _paths_already_read(messages: Sequence[Message]) -> set[tuple[str, str]]:
    """(tool, path) for answered calls whose only argument was a path."""
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    read = set()
    for msg in messages:
        for call in msg.get("tool_calls") or []:
            fn = call.get("function", call)
            args = arguments_from(fn.get("arguments", {}))[0]
            if call.get("id") in answered and len(args) == 1 and set(args) <= PATH_ARGUMENTS:
                read.add((fn.get("name", ""), str(next(iter(args.values())))))
    return read


def _class_escape(chars: str) -> str:
    return "".join("\\" + ch if ch in "^]-\\[" else ch for ch in chars)


def _example_value(name: str, schema: dict[str, Any]) -> Any:
    if name in ("path", "file", "file_path"):
        return "README.md"
    return {"integer": 1, "number": 1, "boolean": True}.get(schema.get("type", ""), "text")


__all__ = ["GenericDialect", "gbnf_literal"]
