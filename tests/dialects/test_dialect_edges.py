"""Normalisation rules and the odd outputs real models produce; bad input never raises."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import ChatTemplateError
from app.llm.dialects import DIALECTS, dialect_by_name, dialect_for_template
from app.llm.dialects.generic import CHATML
from app.llm.dialects.normalize import mistral_id

from ._samples import CONVERSATION, TEMPLATES, TOOLS

FIXED = datetime(2026, 1, 2, 3, 4, 5)


def _real(name: str):
    path = TEMPLATES / name
    if not path.is_file():
        pytest.skip("../shared/chat-templates absent")
    return dialect_for_template(path.read_text(encoding="utf-8"), bos_token="<s>",
                                eos_token="</s>", now=lambda: FIXED)


def test_mistral_ids_are_nine_alphanumerics_and_stable():
    assert mistral_id("call_0") == mistral_id("call_0")
    assert len(mistral_id("call_0")) == 9 and mistral_id("call_0").isalnum()
    assert mistral_id("call_0") != mistral_id("call_1")
    assert mistral_id("abcDEF123") == "abcDEF123"


def test_mistral_call_and_result_share_the_rewritten_id():
    prompt = _real("mistralai-Mistral-Nemo-Instruct-2407.jinja").render(CONVERSATION, TOOLS)
    assert prompt.count(mistral_id("call_0")) == 2 and prompt.count(mistral_id("call_1")) == 2


def test_mistral_accepts_a_user_nudge_after_tool_results():
    messages = [*CONVERSATION, {"role": "user", "content": "Answer now."},
                {"role": "user", "content": "Please."}]
    for name in ("mistralai-Mistral-Nemo-Instruct-2407.jinja", "Mistral-Small-3.2-24B-Instruct-2506.jinja"):
        prompt = _real(name).render(messages, TOOLS)
        assert "Answer now." in prompt and "Please." in prompt


def test_string_arguments_become_objects_for_templates_that_iterate_them():
    prompt = _real("Qwen3-Coder.jinja").render(CONVERSATION, TOOLS)
    assert "<parameter=path>\nREADME.md\n</parameter>" in prompt


def test_functionary_gets_arguments_as_a_json_string():
    prompt = _real("meetkai-functionary-medium-v3.2.jinja").render(CONVERSATION, TOOLS)
    assert '>>>read_file\n{"path": "README.md"}>>>search_text\n{"pattern": "main"}' in prompt


def test_llama_renders_one_call_per_turn_each_followed_by_its_result():
    prompt = _real("meta-llama-Llama-3.1-8B-Instruct.jinja").render(CONVERSATION, TOOLS)
    marks = ('{"name": "read_file"', "README.md:1:", '{"name": "search_text"', "app/main.py:3")
    order = [prompt.index(s) for s in marks]
    assert order == sorted(order)


def test_dates_come_from_the_dialects_clock():
    assert "2026-01-02" in _real("Mistral-Small-3.2-24B-Instruct-2506.jinja").render(CONVERSATION[1:], TOOLS)
    assert "02 Jan 2026" in _real("meta-llama-Llama-3.1-8B-Instruct.jinja").render(CONVERSATION, TOOLS)


def test_tojson_indent_is_supported():
    prompt = _real("ibm-granite-granite-3.3-2B-Instruct.jinja").render(CONVERSATION, TOOLS)
    assert '\n        "function": {' in prompt


def test_loop_controls_are_available():
    dialect = dialect_by_name("hermes", "{% for m in messages %}{% if loop.index > 1 %}{% break %}"
                                        "{% endif %}{{ m.content }}{% endfor %}")
    assert dialect.render([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]) == "a"


def test_a_template_refusing_a_conversation_raises_a_clear_error():
    dialect = dialect_for_template("{{ raise_exception('roles must alternate') }}<tool_call>")
    with pytest.raises(ChatTemplateError, match="roles must alternate"):
        dialect.render(CONVERSATION, TOOLS)


def test_unknown_dialect_name_is_a_clear_error():
    with pytest.raises(ChatTemplateError, match="Unknown dialect"):
        dialect_by_name("klingon", None)


def test_qwen_xml_parameters_follow_the_schema_types():
    dialect = _real("Qwen3-Coder.jinja")
    dialect.render(CONVERSATION, TOOLS)
    raw = ("<tool_call>\n<function=read_file>\n<parameter=path>\n123\n</parameter>\n"
           "<parameter=start_line>\n5\n</parameter>\n</function>\n</tool_call>")
    assert dialect.parse(raw).tool_calls[0].arguments == {"path": "123", "start_line": 5}


def test_llama_builtin_python_tag_call():
    call = DIALECTS["llama3"](CHATML).parse('<|python_tag|>brave_search.call(query="x y")<|eom_id|>').tool_calls[0]
    assert (call.name, call.arguments) == ("brave_search", {"query": "x y"})


def test_gemma_nested_arguments():
    raw = '<|tool_call>call:f{a:<|"|>x, {y}<|"|>,b:[1,2.5],c:{d:true,e:null}}<tool_call|>'
    call = DIALECTS["gemma4"](CHATML).parse(raw).tool_calls[0]
    assert call.arguments == {"a": "x, {y}", "b": [1, 2.5], "c": {"d": True, "e": None}}


def test_broken_json_keeps_the_name_and_hands_the_raw_text_to_the_harness():
    reply = DIALECTS["hermes"](CHATML).parse('<tool_call>{"name": "read_file", "arguments": {bad}}</tool_call>')
    assert reply.tool_calls[0].name == "read_file" and reply.tool_calls[0].arguments == {}


FRAGMENTS = st.sampled_from([
    "<tool_call>", "</tool_call>", "{", "}", '"name"', ": ", '"read_file"', '"arguments"', "[", "]",
    "<think>", "</think>", "[TOOL_CALLS]", "[ARGS]", "<|python_tag|>", "functools", ">>>", "all\n",
    "<|channel|>", "final", "analysis", "<|message|>", "<|start|>", "<|end|>", "to=functions.x",
    "<|tool_call>", "call:", '<|"|>', "<tool_call|>", "<|tool_call_start|>", "read_file(",
    "path=", ")", "<|tool_call|>", "<function=", "<parameter=p>", "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>", "\n", "hello ", "<", "|", "<response>", "<|im_end|>", "/x ", "é",
])


@pytest.mark.parametrize("name", sorted(DIALECTS))
@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(parts=st.lists(FRAGMENTS, max_size=14))
def test_any_output_parses_without_error_and_streams_monotonically(name, parts):
    dialect = DIALECTS[name](CHATML)
    raw = "".join(parts)
    dialect.parse(raw)
    shown = ""
    for end in range(0, len(raw) + 1, 3):
        now = dialect.visible_text(raw[:end])
        assert now.startswith(shown), (raw[:end], shown, now)
        shown = now


def test_hold_back_keeps_only_a_tail_that_may_grow_into_a_marker() -> None:
    from app.llm.dialects.markup import hold_back

    markers = ("<tool_call>", "", "<|im_end|>")
    assert hold_back("The answer is 42 <tool", markers) == "The answer is 42 "
    assert hold_back("a <|im", markers) == "a "
    assert hold_back("a < b", markers) == "a < b"  # "< b" starts no marker
    assert hold_back("x <", markers) == "x "
    assert hold_back("done", ()) == "done"
    assert hold_back("", markers) == ""


def test_the_logprob_reader_matches_a_plain_log_softmax_when_the_row_moves() -> None:
    import ctypes
    import math

    import numpy as np

    from app.llm.llama_stream import logprob_reader

    rows = [np.array([1.0, 2.0, 3.0, 0.5], dtype=np.float32), np.array([0.0, 0.0, 4.0, 1.0], dtype=np.float32)]
    current = [rows[0]]
    read = logprob_reader(lambda: current[0].ctypes.data_as(ctypes.POINTER(ctypes.c_float)), 4)

    def expected(row: np.ndarray, token: int) -> float:
        return round(float(row[token]) - math.log(sum(math.exp(float(v)) for v in row)), 4)

    assert read(2) == expected(rows[0], 2)
    rows[0][2] = -1.0  # the same buffer, new logits: read in place
    assert read(2) == expected(rows[0], 2)
    current[0] = rows[1]  # another buffer
    assert read(3) == expected(rows[1], 3)
