"""The generic dialect: tools in the system prompt, GBNF-constrained replies, results as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.llm.dialects import dialect_for_template
from app.llm.dialects.callformats import FORMATS
from app.llm.dialects.gbnf import gbnf_literal
from app.llm.dialects.generic import GenericDialect

from ._samples import CONVERSATION, QUESTION, RESULT_ONE, RESULT_TWO, TEMPLATES, TOOLS

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOL = "HuggingFaceTB-SmolLM2-135M-Instruct.jinja"


def _template(name: str) -> str:
    path = TEMPLATES / name
    if not path.is_file():
        pytest.skip("../shared/chat-templates absent")
    return path.read_text(encoding="utf-8")


def test_no_template_gives_the_generic_dialect_with_a_chatml_prompt():
    dialect = dialect_for_template(None)
    prompt = dialect.render(CONVERSATION, TOOLS)
    assert dialect.name == "generic" and not dialect.supports_tools
    assert prompt.endswith("<|im_start|>assistant\n")
    assert RESULT_ONE in prompt and RESULT_TWO in prompt and QUESTION in prompt


def test_a_broken_template_falls_back_instead_of_crashing():
    dialect = dialect_for_template("{% for m in messages %}{{ m.content }")
    assert dialect.name == "generic"
    assert "hello" in dialect.render([{"role": "user", "content": "hello"}])


def test_tools_are_described_in_the_system_prompt():
    prompt = dialect_for_template(None).render(CONVERSATION[:2], TOOLS)
    system = prompt.split("<|im_end|>")[0]
    assert "read_file(path, start_line?, max_lines?)" in system
    assert '<tool_call>{"name": "read_file", "arguments": {"path": "README.md"}}</tool_call>' in system


def test_a_call_turn_is_rendered_as_the_exact_text_the_grammar_produced():
    dialect = dialect_for_template(None)
    produced = '<tool_call>{"name": "read_file", "arguments": {"path": "README.md", "start_line": 3}}</tool_call>'
    call = dialect.parse(produced).tool_calls[0]
    messages = [CONVERSATION[1], {"role": "assistant", "content": "", "tool_calls": [
        {"id": "x", "function": {"name": call.name, "arguments": call.raw_arguments}}]},
        {"role": "tool", "tool_call_id": "x", "content": "1: hello"}]
    prompt = dialect.render(messages, TOOLS)
    assert f"<|im_start|>assistant\n{produced}<|im_end|>" in prompt


def test_tool_results_come_back_as_a_user_turn_that_restates_the_question():
    prompt = dialect_for_template(None).render(CONVERSATION, TOOLS)
    last_user = prompt.rsplit("<|im_start|>user\n", 1)[1]
    assert last_user.startswith("Contents of README.md:\n" + RESULT_ONE)
    assert "Search results for main:\n" + RESULT_TWO in last_user
    assert QUESTION in last_user


@pytest.mark.parametrize("name", ["google-gemma-2-2b-it.jinja", "microsoft-Phi-3.5-mini-instruct.jinja", SMOL])
def test_templates_without_tools_render_the_whole_conversation(name):
    dialect = dialect_for_template(_template(name))
    prompt = dialect.render(CONVERSATION, TOOLS)
    assert dialect.name == "generic"
    assert "You are Burrow." in prompt  # Gemma 2 refuses a system role: it is folded into the user turn
    assert RESULT_ONE in prompt and RESULT_TWO in prompt and "read_file" in prompt


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_each_call_format_parses_what_it_renders(fmt):
    dialect = GenericDialect(None, call_format=fmt)
    text = dialect.call_format.render("read_file", {"path": 'we"ird.md', "start_line": 2})
    call = dialect.parse(text).tool_calls[0]
    assert (call.name, call.arguments) == ("read_file", {"path": 'we"ird.md', "start_line": 2})
    assert dialect.visible_text(text) == ""


def test_an_answer_streams_and_parses_as_content():
    dialect = dialect_for_template(None)
    raw = "The README says <b> & more.<|im_end|>"
    assert dialect.parse(raw).content == "The README says <b> & more."
    assert dialect.visible_text(raw) == "The README says <b> & more."
    assert dialect.visible_text(raw[:-3]) == "The README says <b> & more."  # partial marker held


def test_gbnf_literals_escape_quotes_backslashes_and_control_characters():
    assert gbnf_literal('a"b\\c\nd\te\x01') == '"a\\"b\\\\c\\nd\\te\\x01"'


def test_grammar_lists_known_paths_as_json_strings_and_force_answer_allows_no_call():
    dialect = dialect_for_template(None)
    grammar = dialect.grammar(TOOLS, ['we"ird.md'])
    assert gbnf_literal(json.dumps('we"ird.md')) in grammar
    forced = dialect.grammar(TOOLS, ["README.md"], force_answer=True)
    assert "read_file" not in forced and forced.startswith("root ::= answer")


def test_native_dialects_need_no_grammar():
    assert dialect_for_template("{{ messages }}<tool_call>").grammar(TOOLS) is None


def test_a_file_already_read_is_not_offered_again():
    dialect = dialect_for_template(None)
    messages = [CONVERSATION[1], {"role": "assistant", "content": "", "tool_calls": [
        {"id": "a", "function": {"name": "read_file", "arguments": {"path": "README.md"}}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1: hi"}]
    grammar = dialect.grammar(TOOLS, ["README.md", "src/app.py"], messages=messages)
    read_rule = next(line for line in grammar.splitlines() if line.startswith("args-read-file-path"))
    assert "README.md" not in read_rule and "src/app.py" in read_rule and "read_file" in grammar
    only_readme = dialect.grammar(TOOLS, ["README.md"], messages=messages)
    assert "read_file" not in only_readme and "search_text" in only_readme  # its path is optional


def test_earlier_turns_render_the_same_when_the_conversation_grows():
    dialect = dialect_for_template(None)
    later = [*CONVERSATION, {"role": "assistant", "content": "It answers."},
             {"role": "user", "content": "And what else?"}]
    first = dialect.render(CONVERSATION, TOOLS, add_generation_prompt=False)
    assert dialect.render(later, TOOLS).startswith(first)


def test_a_call_written_in_a_json_fence_is_a_call_and_a_fenced_package_json_an_answer():
    """What the 1.5B default wrote through llama-cpp-python's server (no grammar there, and the
    server parses no calls): its call in a ```json fence, then prose and an echo of the tools."""
    dialect = dialect_for_template(None)
    raw = ('```json\n{\n  "name": "search_code",\n  "arguments": {\n    "query": "timeout",\n'
           '    "limit": 8\n  }\n}\n```\n\nThe lines that answer the question are:\n<tools>\n{"type": ')
    call = dialect.parse(raw).tool_calls[0]
    assert (call.name, call.arguments) == ("search_code", {"query": "timeout", "limit": 8})
    answer = '```json\n{"name": "demo", "version": "1.0.0"}\n```\nThat is the package file.'
    parsed = dialect.parse(answer)
    assert parsed.tool_calls == () and parsed.content.startswith("```json")
    assert dialect.parse("```json\n{not json}\n```").tool_calls == ()
    # while streaming, a reply that may be a fenced call is held back; other code fences show
    assert [dialect.visible_text(raw[:n]) for n in (3, 8, 20, len(raw))] == ["", "", "", ""]
    assert dialect.visible_text("```rust\nfn main() {}") == "```rust\nfn main() {}"
    assert dialect.visible_text("`Session.get` sends") == "`Session.get` sends"
