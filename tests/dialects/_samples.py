"""Shared inputs: tools, a conversation with two tool results, and model outputs per family.

Outputs are written the way each family's models really emit them (special tokens kept).
"""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2].parent / "shared" / "chat-templates"

TOOLS = [
    {"type": "function", "function": {
        "name": "read_file", "description": "Read lines of a text file in the workspace.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["path"],
                       "properties": {"path": {"type": "string", "description": "workspace path"},
                                      "start_line": {"type": "integer"},
                                      "max_lines": {"type": "integer"}}}}},
    {"type": "function", "function": {
        "name": "search_text", "description": "Search the workspace for a regular expression.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["pattern"],
                       "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}}}},
]

QUESTION = "What does <main> & \"co\" do?"
RESULT_ONE = "README.md:1: Burrow <answers> questions & cites \"lines\"\nsecond line"
RESULT_TWO = "app/main.py:3: def main():"

CONVERSATION = [
    {"role": "system", "content": "You are Burrow."},
    {"role": "user", "content": QUESTION},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_0", "type": "function",
         "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}},
        {"id": "call_1", "type": "function",
         "function": {"name": "search_text", "arguments": {"pattern": "main"}}}]},
    {"role": "tool", "tool_call_id": "call_0", "content": RESULT_ONE},
    {"role": "tool", "tool_call_id": "call_1", "content": RESULT_TWO},
]

# template file -> dialect it must be detected as
EXPECTED = {
    "HuggingFaceTB-SmolLM2-135M-Instruct.jinja": "generic",
    "HuggingFaceTB-SmolLM3-3B.jinja": "smollm3",
    "LFM2.5-Instruct.jinja": "lfm2",
    "Mistral-Small-3.2-24B-Instruct-2506.jinja": "mistral",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "hermes",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": "hermes",
    "Qwen-Qwen2.5-7B-Instruct.jinja": "hermes",
    "Qwen-Qwen3-0.6B.jinja": "hermes",
    "Qwen3-Coder.jinja": "qwen3_coder",
    "Qwen3.5-4B.jinja": "qwen3_coder",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": "deepseek_r1",
    "fireworks-ai-llama-3-firefunction-v2.jinja": "firefunction",
    "google-gemma-2-2b-it.jinja": "generic",
    "google-gemma-4-31B-it.jinja": "gemma4",
    "ibm-granite-granite-3.3-2B-Instruct.jinja": "granite",
    "ibm-granite-granite-4.0.jinja": "hermes",
    "meetkai-functionary-medium-v3.2.jinja": "functionary",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3",
    "microsoft-Phi-3.5-mini-instruct.jinja": "generic",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": "mistral",
    "openai-gpt-oss-120b.jinja": "harmony",
    "unsloth-mistral-Devstral-Small-2507.jinja": "mistral",
}

READ = ("read_file", {"path": "README.md"})
SEARCH = ("search_text", {"pattern": "main"})
THOUGHT = "I should think about it."
ANSWER = "Burrow answers questions about <code> & cites lines."

_H1 = '<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'
_H2 = '<tool_call>\n{"name": "search_text", "arguments": {"pattern": "main"}}\n</tool_call>'
_X1 = "<tool_call>\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>"
_X2 = "<tool_call>\n<function=search_text>\n<parameter=pattern>\nmain\n</parameter>\n</function>\n</tool_call>"
_L1 = '{"name": "read_file", "parameters": {"path": "README.md"}}'
_L2 = '{"name": "search_text", "parameters": {"pattern": "main"}}'
_J1 = '{"name": "read_file", "arguments": {"path": "README.md"}}'
_J2 = '{"name": "search_text", "arguments": {"pattern": "main"}}'
_DS = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{}\n```<｜tool▁call▁end｜>"
_DS1 = _DS.format("read_file", '{"path": "README.md"}')
_DS2 = _DS.format("search_text", '{"pattern": "main"}')
_HM = "<|channel|>commentary to=functions.{} <|constrain|>json<|message|>{}<|call|>"
_HM1 = _HM.format("read_file", '{"path": "README.md"}')
_HM2 = "<|start|>assistant" + _HM.format("search_text", '{"pattern": "main"}')
_G1 = '<|tool_call>call:read_file{path:<|"|>README.md<|"|>}<tool_call|>'
_G2 = '<|tool_call>call:search_text{pattern:<|"|>main<|"|>}<tool_call|>'
_F1 = '<|tool_call_start|>[read_file(path="README.md")]<|tool_call_end|>'
_FN = 'read_file\n{"path": "README.md"}'
_M1 = '[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}'
_TH = f"<think>\n{THOUGHT}\n</think>\n\n"  # reasoning as plain-text tags (Magistral, fine-tunes)
# GPT-OSS: the prompt ends with "<|start|>assistant", so a call may begin with its recipient
# (the order the gpt-oss template itself renders calls in), before the channel
_HR = ' to=functions.{}<|channel|>commentary json<|message|>{}<|call|>'
_HR1 = _HR.format("read_file", '{"path": "README.md"}')
_HR2 = "<|start|>assistant" + _HR.format("search_text", '{"pattern": "main"}')

# dialect -> case -> raw output; cases: single, several, before ("Let me look." then a call),
# unclosed (final closing tag missing), reasoning (a reasoning block, then a call), answer.
OUTPUTS: dict[str, dict[str, str]] = {
    "hermes": {
        "single": _H1 + "<|im_end|>", "several": _H1 + "\n" + _H2,
        "before": "Let me look.\n" + _H1, "unclosed": _H1.removesuffix("</tool_call>"),
        "reasoning": f"<think>\n{THOUGHT}\n</think>\n\n{_H1}", "answer": ANSWER + "<|im_end|>",
        # near-misses seen from Qwen2.5-Coder (issue 12): the tool-list tag, a bare or fenced object
        "tools_tag": _H1.replace("tool_call>", "tools>") + "<|im_end|>",
        "bare": _J1 + "<|im_end|>", "fenced": f"```json\n{_J1}\n```<|im_end|>"},
    "qwen3_coder": {
        "single": _X1 + "<|im_end|>", "several": _X1 + "\n" + _X2,
        "before": "Let me look.\n\n" + _X1, "unclosed": _X1.removesuffix("\n</tool_call>"),
        "reasoning": f"<think>\n{THOUGHT}\n</think>\n\n{_X1}", "answer": ANSWER + "<|im_end|>"},
    "llama3": {
        "single": _L1 + "<|eot_id|>", "several": "<|python_tag|>" + _L1 + "; " + _L2 + "<|eom_id|>",
        "before": "Let me look. " + _L1, "unclosed": _L1[:-1], "answer": ANSWER + "<|eot_id|>"},
    "firefunction": {
        "single": f" functools[{_J1}]<|eot_id|>", "several": f" functools[{_J1}, {_J2}]",
        "before": f"Let me look. functools[{_J1}]", "unclosed": f" functools[{_J1}",
        "answer": ANSWER + "<|eot_id|>"},
    "functionary": {  # the prompt ends with '>>>'
        "single": 'read_file\n{"path": "README.md"}<|eot_id|>',
        "several": 'read_file\n{"path": "README.md"}>>>search_text\n{"pattern": "main"}',
        "before": 'all\nLet me look.>>>read_file\n{"path": "README.md"}',
        "unclosed": 'read_file\n{"path": "README.md"', "answer": "all\n" + ANSWER + "<|eot_id|>",
        # issue 13 shape 3: reasoning and text before the call; only ">>>name" starts a call
        "reasoning": f'{_TH}>>>read_file\n{{"path": "README.md"}}<|eot_id|>',
        "think_before": f"<think>{THOUGHT}</think>Let me look.\n>>>" + _FN,
        "think_spaced": f'{_TH}Let me look.\n>>>read_file\n{{"path": "README.md"}}<|eot_id|>',
        "text_before": 'Let me look.\n>>>read_file\n{"path": "README.md"}<|eot_id|>'},
    "mistral": {
        "single": '[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}</s>',
        "several": f"[TOOL_CALLS][{_J1}, {_J2}]</s>",
        "before": 'Let me look.[TOOL_CALLS]read_file[CALL_ID]a1B2c3D4e[ARGS]{"path": "README.md"}',
        "unclosed": f"[TOOL_CALLS][{_J1}",
        "reasoning": f"[THINK]{THOUGHT}[/THINK]{_M1}",
        # issue 13 shape 1: <think> reasoning, then a call in either form
        "think_list": f"{_TH}[TOOL_CALLS][{_J1}]</s>", "think_named": f"{_TH}{_M1}</s>",
        "think_before": f"{_TH}Let me look.{_M1}</s>",
        "answer": ANSWER + "</s>"},
    "granite": {
        "single": f"<|tool_call|>[{_J1}]<|end_of_text|>", "several": f"<|tool_call|>[{_J1}, {_J2}]",
        "before": f"Let me look.<|tool_call|>[{_J1}]", "unclosed": f"<|tool_call|>[{_J1}",
        "reasoning": f"<think>{THOUGHT}</think><|tool_call|>[{_J1}]",
        "answer": f"<response>{ANSWER}</response><|end_of_text|>"},
    "deepseek_r1": {
        "single": f"<｜tool▁calls▁begin｜>{_DS1}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
        "several": f"<｜tool▁calls▁begin｜>{_DS1}\n{_DS2}<｜tool▁calls▁end｜>",
        "before": f"Let me look.<｜tool▁calls▁begin｜>{_DS1}<｜tool▁calls▁end｜>",
        "unclosed": "<｜tool▁calls▁begin｜>" + _DS1.split("\n```<")[0],
        "reasoning": f"<think>\n{THOUGHT}\n</think>\n\n<｜tool▁calls▁begin｜>{_DS1}<｜tool▁calls▁end｜>",
        "answer": ANSWER + "<｜end▁of▁sentence｜>"},
    "harmony": {
        "single": _HM1, "several": _HM1 + _HM2,
        "before": "<|channel|>commentary<|message|>Let me look.<|end|><|start|>assistant" + _HM1,
        "unclosed": _HM1.removesuffix("<|call|>"),
        "reasoning": f"<|channel|>analysis<|message|>{THOUGHT}<|end|><|start|>assistant{_HM1}",
        "answer": f"<|channel|>analysis<|message|>{THOUGHT}<|end|><|start|>assistant"
                  f"<|channel|>final<|message|>{ANSWER}<|return|>",
        # issue 13 shape 4: the recipient in the header, before the channel
        "header_single": _HR1, "header_several": _HR1 + _HR2,
        "header_constrain": ' to=functions.read_file<|channel|>commentary <|constrain|>json'
                            '<|message|>{"path": "README.md"}<|call|>',
        "header_reasoning": f"<|channel|>analysis<|message|>{THOUGHT}<|end|><|start|>assistant"
                            + _HR1,
        "header_before": "<|channel|>commentary<|message|>Let me look.<|end|><|start|>assistant"
                         + _HR1},
    "gemma4": {
        "single": _G1, "several": _G1 + _G2, "before": "Let me look." + _G1,
        "unclosed": _G1.removesuffix("<tool_call|>"),
        "reasoning": f"<|channel>thought\n{THOUGHT}<channel|>{_G1}", "answer": ANSWER + "<turn|>"},
    "lfm2": {
        "single": _F1 + "<|im_end|>",
        "several": '<|tool_call_start|>[read_file(path="README.md"), search_text(pattern="main")]<|tool_call_end|>',
        "before": "Let me look." + _F1, "unclosed": _F1.removesuffix("<|tool_call_end|>"),
        "reasoning": f"<think>{THOUGHT}</think>{_F1}", "answer": ANSWER + "<|im_end|>"},
    "generic": {"single": f"<tool_call>{_J1}</tool_call>", "answer": ANSWER + "<|im_end|>"},
}
OUTPUTS["smollm3"] = OUTPUTS["hermes"]

EXPECTED_CALLS = {"single": [READ], "several": [READ, SEARCH], "before": [READ],
                  "unclosed": [READ], "reasoning": [READ], "answer": [],
                  "think_list": [READ], "think_named": [READ], "think_before": [READ],
                  "think_spaced": [READ], "text_before": [READ],
                  "header_single": [READ], "header_several": [READ, SEARCH],
                  "header_constrain": [READ], "header_reasoning": [READ], "header_before": [READ],
                  "tools_tag": [READ], "bare": [READ], "fenced": [READ]}
# the reply's content per case ("" when not listed) and the cases that carry THOUGHT as reasoning
_LOOK = ("before", "think_before", "think_spaced", "text_before", "header_before")
EXPECTED_CONTENT = {"answer": ANSWER} | dict.fromkeys(_LOOK, "Let me look.")
REASONING_CASES = frozenset({"reasoning", "think_list", "think_named", "think_before",
                             "think_spaced", "header_reasoning"})

# a new user message after tool results (issue 13 shapes 2 and 5)
NEW_TURN = "And which file defines <main>?"

# text that must never reach the user while streaming
MARKUP = ("tool_call", "read_file", "TOOL_CALLS", "functools", ">>>", "<|", "<｜", "[ARGS]",
          "search_text", THOUGHT, "<think>", "</think>")
