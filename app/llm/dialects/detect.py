"""Which dialect a chat template speaks, read from the template text itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.errors import ChatTemplateError
from app.llm.dialects.base import Dialect
from app.llm.dialects.gemma4 import Gemma4Dialect
from app.llm.dialects.generic import GenericDialect
from app.llm.dialects.harmony import HarmonyDialect
from app.llm.dialects.hermes import HermesDialect, SmolLM3Dialect
from app.llm.dialects.llama import FireFunctionDialect, FunctionaryDialect, Llama3Dialect
from app.llm.dialects.mistral import MistralDialect
from app.llm.dialects.others import DeepSeekR1Dialect, GraniteDialect, Lfm2Dialect
from app.llm.dialects.qwen_xml import QwenXmlDialect

# Order matters: more specific signatures first (Qwen XML templates also contain <tool_call>).
RULES: tuple[tuple[Callable[[str], bool], type[Dialect]], ...] = (
    (lambda t: "<|channel|>" in t and "to=" in t, HarmonyDialect),
    (lambda t: "<|tool_call>" in t, Gemma4Dialect),
    (lambda t: "<|tool_call|>" in t, GraniteDialect),
    (lambda t: "[TOOL_CALLS]" in t, MistralDialect),
    (lambda t: "<function=" in t, QwenXmlDialect),
    (lambda t: "<tool_call>" in t, HermesDialect),
    (lambda t: "functools[" in t, FireFunctionDialect),
    (lambda t: ">>>" in t and "recipient" in t, FunctionaryDialect),
    (lambda t: "tool▁calls▁begin" in t, DeepSeekR1Dialect),
    (lambda t: "<|python_tag|>" in t or ("ipython" in t and '"parameters"' in t), Llama3Dialect),
    (lambda t: "List of tools: [" in t, Lfm2Dialect),
    (lambda t: "SmolLM" in t and "<think>" in t, SmolLM3Dialect),
)

DIALECTS: dict[str, type[Dialect]] = {cls.name: cls for _, cls in RULES} | {"generic": GenericDialect}


def dialect_class(template: str | None) -> type[Dialect]:
    if template:
        for matches, cls in RULES:
            if matches(template):
                return cls
    return GenericDialect


def dialect_for_template(template: str | None, bos_token: str = "", eos_token: str = "",
                         **options: Any) -> Dialect:
    """The dialect for a chat template (None: the generic one with a ChatML prompt).

    A template that does not compile falls back to the generic dialect with ChatML rather than
    making the model unusable; `options` go to the dialect (now=, call_format= for generic).
    """
    cls = dialect_class(template)
    try:
        return cls(template, bos_token=bos_token, eos_token=eos_token, **options)
    except ChatTemplateError:
        return GenericDialect(None, bos_token=bos_token, eos_token=eos_token, **options)


def dialect_by_name(name: str, template: str | None, **options: Any) -> Dialect:
    """A dialect chosen by name (a catalog entry or a user override) instead of detection."""
    if name not in DIALECTS:
        raise ChatTemplateError(f"Unknown dialect {name!r}; known: {', '.join(sorted(DIALECTS))}")
    return DIALECTS[name](template, **options)
