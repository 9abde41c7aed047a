"""Render and parse against every real chat template in ../shared/chat-templates."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache

import pytest

from app.llm.dialects import dialect_for_template

from ._samples import (
    CONVERSATION,
    EXPECTED,
    EXPECTED_CALLS,
    EXPECTED_CONTENT,
    MARKUP,
    NEW_TURN,
    OUTPUTS,
    QUESTION,
    REASONING_CASES,
    RESULT_ONE,
    RESULT_TWO,
    TEMPLATES,
    THOUGHT,
    TOOLS,
)

pytestmark = pytest.mark.skipif(not TEMPLATES.is_dir(), reason="../shared/chat-templates absent")

NAMES = sorted(EXPECTED)
FIXED = datetime(2026, 1, 2, 3, 4, 5)


@cache  # dialects hold no conversation state; compiling is the slow part
def _dialect(name: str):
    return dialect_for_template((TEMPLATES / name).read_text(encoding="utf-8"),
                                bos_token="<s>", eos_token="</s>", now=lambda: FIXED)


def _raw_for(dialect, raw: str) -> str:
    """When the prompt already opened the reasoning block, the model does not repeat the tag
    and always closes the block before its reply."""
    if not dialect.opens_reasoning:
        return raw
    return raw.removeprefix("<think>\n") if raw.startswith("<think>") else "</think>\n\n" + raw


def test_every_template_in_the_folder_is_covered():
    assert sorted(p.name for p in TEMPLATES.glob("*.jinja")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_detects_the_family(name):
    assert _dialect(name).name == EXPECTED[name]


@pytest.mark.parametrize("name", NAMES)
def test_every_tool_result_and_the_raw_user_text_reach_the_prompt(name):
    prompt = _dialect(name).render(CONVERSATION, TOOLS)
    for result in (RESULT_ONE, RESULT_TWO):
        # harmony's template writes results as JSON strings; every other family verbatim
        assert result in prompt or json.dumps(result, ensure_ascii=False) in prompt
    assert QUESTION in prompt
    assert "&lt;" not in prompt and "&amp;" not in prompt and "&#34;" not in prompt
    assert "read_file" in prompt and "search_text" in prompt


@pytest.mark.parametrize("name", NAMES)
def test_render_is_stable_for_the_kv_cache(name):
    dialect = _dialect(name)
    first = dialect.render(CONVERSATION[:2], TOOLS, add_generation_prompt=False)
    assert dialect.render(CONVERSATION[:2], TOOLS) == dialect.render(CONVERSATION[:2], TOOLS)
    assert first  # the template produced something for a plain question


@pytest.mark.parametrize("name", NAMES)
def test_the_callers_messages_are_not_changed(name):
    messages = json.loads(json.dumps(CONVERSATION))
    _dialect(name).render(messages, TOOLS)
    assert messages == CONVERSATION


@pytest.mark.parametrize("name", NAMES)
def test_a_new_user_turn_after_tool_results_reaches_the_prompt_after_them(name):
    """Issue 13: whatever each family makes of it, the results and the new turn all arrive."""
    messages = [*CONVERSATION, {"role": "user", "content": NEW_TURN}]
    prompt = _dialect(name).render(messages, TOOLS)
    last = max(prompt.rfind(r) for r in (RESULT_TWO, json.dumps(RESULT_TWO, ensure_ascii=False)))
    assert RESULT_ONE in prompt or json.dumps(RESULT_ONE, ensure_ascii=False) in prompt
    assert NEW_TURN in prompt[last:]


CASES = [(n, c) for n in NAMES for c in OUTPUTS[EXPECTED[n]]]


@pytest.mark.parametrize(("name", "case"), CASES)
def test_parses_what_the_family_writes(name, case):
    dialect = _dialect(name)
    reply = dialect.parse(_raw_for(dialect, OUTPUTS[dialect.name][case]))
    assert [(c.name, c.arguments) for c in reply.tool_calls] == EXPECTED_CALLS[case]
    for call in reply.tool_calls:
        assert json.loads(call.raw_arguments) == call.arguments
    assert reply.content == EXPECTED_CONTENT.get(case, "")
    if case in REASONING_CASES:
        assert reply.reasoning == THOUGHT
    assert THOUGHT not in reply.content


@pytest.mark.parametrize(("name", "case"), CASES)
def test_streaming_shows_no_markup_and_only_grows(name, case):
    dialect = _dialect(name)
    raw = _raw_for(dialect, OUTPUTS[dialect.name][case])
    shown = ""
    for end in range(len(raw) + 1):
        now = dialect.visible_text(raw[:end])
        assert now.startswith(shown), (raw[:end], shown, now)
        assert not any(m in now for m in MARKUP), now
        shown = now
    assert shown.strip() == EXPECTED_CONTENT.get(case, "")


@pytest.mark.parametrize("name", NAMES)
def test_a_parsed_call_renders_back_into_the_next_prompt(name):
    dialect = _dialect(name)
    raw = _raw_for(dialect, OUTPUTS[dialect.name]["single"])
    call = dialect.parse(raw).tool_calls[0]
    messages = [*CONVERSATION[:2],
                {"role": "assistant", "content": "",
                 "tool_calls": [{"id": call.id or "call_9", "type": "function",
                                 "function": {"name": call.name, "arguments": call.raw_arguments}}]},
                {"role": "tool", "tool_call_id": call.id or "call_9", "content": "FRESH RESULT"}]
    prompt = dialect.render(messages, TOOLS)
    assert "FRESH RESULT" in prompt and "README.md" in prompt
