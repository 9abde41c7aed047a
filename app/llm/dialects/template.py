"""TemplateDialect: rendering with the model's own chat template, parsing by family hooks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from app.llm.base import Message, ParsedReply, ParsedToolCall, ToolSpec
from app.llm.dialects.base import Dialect
from app.llm.dialects.jinja_env import compile_template, render_template
from app.llm.dialects.markup import first_index, split_think, strip_markers, visible_after_think
from app.llm.dialects.normalize import normalize_messages

DEFAULT_END_MARKERS = ("<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "</s>",
                       "<|endoftext|>", "<end_of_turn>", "<turn|>", "<｜end▁of▁sentence｜>")


class TemplateDialect(Dialect):
    """A family whose template renders tools. Subclasses set markers and parse_calls."""

    markers: tuple[str, ...] = ()  # where tool-call markup starts in the output
    end_markers: tuple[str, ...] = DEFAULT_END_MARKERS
    think_tags: tuple[str, str] = ("<think>", "</think>")
    # Other reasoning tags the family's fine-tunes write (Magistral: <think> besides [THINK]);
    # a reply that opens with one of them is read with it.
    other_think_tags: tuple[tuple[str, str], ...] = ()
    arguments_as_string = False

    def __init__(self, template: str | None, *, bos_token: str = "", eos_token: str = "",
                 now: Callable[[], datetime] | None = None, **_: Any) -> None:
        super().__init__(template, bos_token=bos_token, eos_token=eos_token)
        # One moment per dialect: a date that changed between turns would break KV-cache reuse.
        moment = (now or datetime.now)()
        self._compiled = compile_template(template or "", lambda: moment)
        self._moment = moment
        self.opens_reasoning = self._probe_opens_reasoning()

    # -- rendering -------------------------------------------------------------------------
    def render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
               add_generation_prompt: bool = True) -> str:
        prepared = self.prepare(normalize_messages(messages, self.arguments_as_string), tools)
        return render_template(
            self._compiled, messages=prepared, tools=list(tools) or None,
            add_generation_prompt=add_generation_prompt, bos_token=self.bos_token,
            eos_token=self.eos_token, **self.template_variables(tools))

    def prepare(self, messages: list[Message], tools: Sequence[ToolSpec]) -> list[Message]:
        """Family-specific reshaping of normalised messages."""
        return messages

    def template_variables(self, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        return {}

    def _probe_opens_reasoning(self) -> bool:
        """Whether the generation prompt leaves a reasoning block open (Qwen3.5, R1 variants)."""
        try:
            prompt = self.render([{"role": "user", "content": "hi"}])
        except Exception:  # a template that refuses the probe simply does not open one
            return False
        return prompt.rstrip().endswith(self.think_tags[0])

    # -- parsing ---------------------------------------------------------------------------
    def reasoning_tags(self, raw: str) -> tuple[str, str]:
        """The tag pair this reply uses: one whose opening tag it starts with (or may still
        grow into), else the family's own."""
        head = raw.lstrip()
        for pair in self.other_think_tags:
            if head and (head.startswith(pair[0]) or pair[0].startswith(head)):
                return pair
        return self.think_tags

    def parse(self, raw: str) -> ParsedReply:
        reasoning, rest = split_think(raw, self.opens_reasoning, *self.reasoning_tags(raw))
        cut = first_index(reasoning, self.markers) if not rest else len(reasoning)
        if cut < len(reasoning):  # reasoning never closed, yet a call followed: keep the call
            reasoning, rest = reasoning[:cut].strip(), reasoning[cut:]
        content, calls = self.parse_calls(rest)
        return ParsedReply(content=self.clean(content), tool_calls=tuple(calls), reasoning=reasoning)

    def parse_calls(self, text: str) -> tuple[str, list[ParsedToolCall]]:
        return text, []

    def clean(self, content: str) -> str:
        return strip_markers(content, self.end_markers + (self.eos_token,)).strip()

    def visible_text(self, raw_so_far: str) -> str:
        return visible_after_think(raw_so_far, self.opens_reasoning,
                                   self.markers + self.end_markers,
                                   *self.reasoning_tags(raw_so_far))
