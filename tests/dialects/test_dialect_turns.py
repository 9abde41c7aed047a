"""Conversations that templates refuse or misplace (issue 13 shapes 2 and 5): a new user turn
after tool results (Mistral), and strict user/assistant alternation (Gemma 2 and older templates,
through the generic dialect). Every tool result must still reach the model."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.llm.dialects import dialect_for_template

from ._samples import CONVERSATION, NEW_TURN, QUESTION, RESULT_ONE, RESULT_TWO, TEMPLATES, TOOLS

FIXED = datetime(2026, 1, 2, 3, 4, 5)

# Documented templates of families that demand alternation but are not in ../shared (copied
# from the tokenizer_config.json of mistralai/Mistral-7B-Instruct-v0.1 and
# meta-llama/Llama-2-7b-chat-hf): the first refuses a system role, the second keeps a leading one.
MISTRAL_7B_V01 = (
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != "
    "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate "
    "user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant "
    "roles are supported!') }}{% endif %}{% endfor %}")
LLAMA_2_CHAT = (
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}"
    "{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
    "{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception("
    "'Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + "
    "system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}"
    "{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}"
    "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == "
    "'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}")

NEW = [*CONVERSATION, {"role": "user", "content": NEW_TURN}]


def _real(name: str):
    path = TEMPLATES / name
    if not path.is_file():
        pytest.skip("../shared/chat-templates absent")
    return dialect_for_template(path.read_text(encoding="utf-8"), bos_token="<s>",
                                eos_token="</s>", now=lambda: FIXED)


# -- shape 2: Mistral, a new user turn after tool results --------------------------------------

# How mistral-common encodes NEW: the tool list goes before the last user message (v3, Nemo,
# also puts the system prompt into it; Devstral's Unsloth template lists tools once at the start).
MISTRAL_TAILS = {
    "mistralai-Mistral-Nemo-Instruct-2407.jinja":
        ("[AVAILABLE_TOOLS]", f"[/AVAILABLE_TOOLS][INST]You are Burrow.\n\n{NEW_TURN}[/INST]"),
    "Mistral-Small-3.2-24B-Instruct-2506.jinja":
        ("[AVAILABLE_TOOLS]", f"[/AVAILABLE_TOOLS][INST]{NEW_TURN}[/INST]"),
    "unsloth-mistral-Devstral-Small-2507.jinja": ("[INST]", f"[INST]{NEW_TURN}[/INST]"),
}


@pytest.mark.parametrize("name", sorted(MISTRAL_TAILS))
def test_mistral_new_user_turn_after_tool_results_is_its_own_inst_turn(name):
    prompt = _real(name).render(NEW, TOOLS)
    head, tail = prompt.rsplit("[/TOOL_RESULTS]", 1)
    start, end = MISTRAL_TAILS[name]
    assert tail.startswith(start) and tail.endswith(end) and tail.count("[INST]") == 1, tail
    assert RESULT_ONE in head and RESULT_TWO in head and NEW_TURN not in head


@pytest.mark.parametrize("name", sorted(MISTRAL_TAILS))
def test_mistral_consecutive_user_turns_after_tool_results_merge_into_one(name):
    messages = [*CONVERSATION, {"role": "user", "content": "Answer now."},
                {"role": "user", "content": "Please."}]
    tail = _real(name).render(messages, TOOLS).rsplit("[/TOOL_RESULTS]", 1)[1]
    assert tail.endswith("Answer now.\n\nPlease.[/INST]") and tail.count("[INST]") == 1, tail


@pytest.mark.parametrize("name", sorted(MISTRAL_TAILS))
def test_mistral_conversation_goes_on_after_the_new_turn(name):
    messages = [*NEW, {"role": "assistant", "content": "It is app/main.py."},
                {"role": "user", "content": "And the tests?"}]
    prompt = _real(name).render(messages, TOOLS)
    order = [prompt.index(s) for s in (RESULT_TWO, f"{NEW_TURN}[/INST]",
                                       "[/INST]It is app/main.py.</s>", "And the tests?[/INST]")]
    assert order == sorted(order) and prompt.endswith("And the tests?[/INST]")


# -- shape 5: the generic dialect and templates that demand strict alternation -----------------

GENERIC = {  # template -> how its prompt must end (the generation prompt, or the last [/INST])
    "gemma-2": ("google-gemma-2-2b-it.jinja", "<start_of_turn>model\n"),
    "mistral-7b-v0.1": (MISTRAL_7B_V01, "[/INST]"),
    "llama-2-chat": (LLAMA_2_CHAT, "[/INST]"),
    "smollm2": ("HuggingFaceTB-SmolLM2-135M-Instruct.jinja", "<|im_start|>assistant\n"),
    "phi-3.5": ("microsoft-Phi-3.5-mini-instruct.jinja", "<|assistant|>\n"),
    "chatml": (None, "<|im_start|>assistant\n"),
}

_READ_TWO = {"name": "read_file", "arguments": {"path": "README.md", "start_line": 2}}
_CALL = {"role": "assistant", "content": "",
         "tool_calls": [{"id": "c9", "type": "function", "function": _READ_TWO}]}
SHAPES = {  # conversation -> texts that must reach the prompt, in this order
    "new_turn_after_results": (NEW, [QUESTION, RESULT_ONE, RESULT_TWO, NEW_TURN]),
    "two_nudges_after_results": (
        [*CONVERSATION, {"role": "user", "content": "Answer now."},
         {"role": "user", "content": "Please."}], [RESULT_TWO, "Answer now.", "Please."]),
    "system_mid_conversation": (
        [*CONVERSATION, {"role": "system", "content": "Be brief."},
         {"role": "user", "content": NEW_TURN}], [RESULT_TWO, "Be brief.", NEW_TURN]),
    "two_assistant_turns": (
        [*CONVERSATION[:2], {"role": "assistant", "content": "Let me look."}, _CALL,
         {"role": "tool", "tool_call_id": "c9", "content": RESULT_ONE}],
        [QUESTION, "Let me look.", '"start_line": 2', RESULT_ONE]),
    "opens_with_assistant": (
        [{"role": "assistant", "content": "Hello, ask me."}, CONVERSATION[1]],
        ["Hello, ask me.", QUESTION]),
    "tool_result_without_its_call": (
        [CONVERSATION[1], {"role": "tool", "tool_call_id": "x", "content": RESULT_ONE}],
        [QUESTION, RESULT_ONE]),
}


def _template(source: str | None) -> str | None:
    if source is None or "{" in source:
        return source
    path = TEMPLATES / source
    if not path.is_file():
        pytest.skip("../shared/chat-templates absent")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("family", sorted(GENERIC))
def test_generic_renders_every_shape_for_every_template(family, shape):
    source, ending = GENERIC[family]
    dialect = dialect_for_template(_template(source), bos_token="<s>", eos_token="</s>")
    assert dialect.name == "generic"
    messages, texts = SHAPES[shape]
    prompt = dialect.render(messages, TOOLS)
    positions = [prompt.find(t) for t in texts]
    assert -1 not in positions and positions == sorted(positions), (positions, prompt)
    assert prompt.endswith(ending)


@pytest.mark.parametrize("family", ["gemma-2", "mistral-7b-v0.1", "llama-2-chat"])
def test_strict_templates_keep_the_tool_result_and_the_question_in_the_last_user_turn(family):
    source, _ = GENERIC[family]
    prompt = dialect_for_template(_template(source)).render(NEW, TOOLS)
    last_user = prompt.rsplit("<start_of_turn>user\n" if family == "gemma-2" else "[INST] ", 1)[1]
    assert RESULT_TWO in last_user and QUESTION in last_user and NEW_TURN in last_user
