"""The generic dialect with the real llama-cpp-python: grammars compile, the default model obeys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.llm.cpu_backends import load_cpu_variants
from app.llm.dialects import dialect_for_template
from app.llm.dialects.callformats import FORMATS
from app.llm.dialects.generic import GenericDialect

from ._samples import CONVERSATION, TOOLS

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
ODD_PATHS = ["README.md", 'we"ird\\name.md', "tab\there.txt", "ünïcode/ファイル.py", "a b/c-d_e.py"]

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("force", [False, True])
def test_grammars_compile_in_llama_cpp(fmt, force):
    grammar = GenericDialect(None, call_format=fmt).grammar(TOOLS, ODD_PATHS, force_answer=force)
    assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None


@pytest.fixture(scope="module")
def llm():
    if not MODEL.is_file():
        pytest.skip("models/*.gguf absent")
    load_cpu_variants(Path(llama_cpp.__file__).parent)  # the portable build's CPU code
    # n_batch=1: some build machines' llama.cpp dies (SIGILL) in batched prompt evaluation
    return llama_cpp.Llama(model_path=str(MODEL), n_ctx=2048, n_batch=1, verbose=False, seed=7)


def _reply(llm, dialect, messages, paths, force=False):
    prompt = dialect.render(messages, TOOLS)
    text = dialect.grammar(TOOLS, paths, force, messages=messages)
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    out = llm.create_completion(prompt=prompt, grammar=grammar, max_tokens=48, temperature=0.0)
    raw = out["choices"][0]["text"]
    return raw, dialect.parse(raw)


def _assert_call_or_answer(dialect, raw, reply, paths):
    """Exactly one call with valid arguments, written as the dialect writes it back; or an answer."""
    if reply.tool_calls:
        (call,) = reply.tool_calls
        assert reply.content == "" and call.name in ("read_file", "search_text")
        assert call.arguments.get("path", paths[0]) in paths
        assert json.loads(call.raw_arguments) == call.arguments
        assert dialect.call_format.render(call.name, call.arguments) == raw.strip()
    else:
        assert reply.content.strip() and not reply.content.startswith(("{", "<", "/"))


PATHS = ["README.md", "notekeeper/config.py", 'odd "name".md']
FIRST = [{"role": "system", "content": "Answer questions about the project files."},
         {"role": "user", "content": "The project folder contains:\n" + "\n".join(PATHS)
          + "\n\nQuestion: What is the default editor?"}]
AFTER_READ = [*FIRST, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "r1", "function": {"name": "read_file", "arguments": {"path": "README.md"}}}]},
    {"role": "tool", "tool_call_id": "r1", "content": "1: # notekeeper\n2: Keeps notes."}]


@pytest.mark.real_model
@pytest.mark.parametrize("messages", [FIRST, AFTER_READ], ids=["first_turn", "after_a_read"])
def test_the_default_models_reply_is_one_valid_call_or_an_answer(llm, messages):
    dialect = dialect_for_template(llm.metadata.get("tokenizer.chat_template"))
    raw, reply = _reply(llm, dialect, messages, PATHS)
    _assert_call_or_answer(dialect, raw, reply, PATHS)
    if reply.tool_calls and reply.tool_calls[0].name == "read_file":
        assert reply.tool_calls[0].arguments["path"] != "README.md" or messages is FIRST


@pytest.mark.real_model
def test_the_default_model_answers_when_an_answer_is_forced(llm):
    dialect = dialect_for_template(llm.metadata.get("tokenizer.chat_template"))
    raw, reply = _reply(llm, dialect, CONVERSATION, ["README.md"], force=True)
    assert not reply.tool_calls and reply.content.strip()


def test_hermes_grammars_compile_and_constrain_what_they_should():
    """Qwen (Hermes): free output normally; a required call is one schema-valid call in the
    template's layout with paths from the workspace; a forced answer cannot open a call."""
    from app.llm.dialects.hermes import HermesDialect

    dialect = HermesDialect(None)
    assert dialect.grammar(TOOLS, ["README.md"]) is None
    required = dialect.grammar(TOOLS, ["README.md", "src/app.py"], require_tool=True)
    assert '"<tool_call>\\n{\\"name\\": \\"read_file\\"' in required and '"\\"src/app.py\\""' in required
    forced = dialect.grammar(TOOLS, force_answer=True)
    assert forced.startswith("root ::= answer") and "`" in forced.split("answer ::=")[1]
    for text in (required, forced):
        llama_cpp.LlamaGrammar.from_string(text, verbose=False)
