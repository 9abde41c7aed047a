"""Measure which generic call format and result presentation SmolLM2-135M uses best.

    .venv/bin/python -m tests.dialects.measure_generic

Turn 1: the file list and a question; does the model call read_file on the right file?
Turn 2: the right file's content handed back; does the model answer, and correctly?
Greedy decoding, grammar-constrained as in the product. Results go to docs/dialects.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import llama_cpp

from app.harness.prompts import SYSTEM_PROMPT
from app.llm.cpu_backends import load_cpu_variants
from app.llm.dialects import prompts
from app.llm.dialects.callformats import FORMATS
from app.llm.dialects.generic import GenericDialect

from ._samples import TOOLS

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "fixtures" / "sample_project"
MODEL = ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
QUESTIONS = [  # (question, file that answers it, word the answer must contain)
    ("What is notekeeper?", "README.md", "note"),
    ("Where does notekeeper read its settings from?", "README.md", "notekeeper.toml"),
    ("What is the default editor?", "notekeeper/config.py", "nano"),
    ("What is the default maximum note length?", "notekeeper/config.py", "500"),
    ("How do I install notekeeper?", "README.md", "pip install"),
    ("Which command deletes a note?", "README.md", "delete"),
]


class ReadFirst(GenericDialect):
    """Variant: the tool intro insists on reading before answering."""

    def tool_prompt(self, tools):
        return super().tool_prompt(tools) + "\nAlways read the file that holds the answer first."


class NoNudge(GenericDialect):
    """Variant: the tool result alone, without the question restated."""

    def _results_turn(self, results, question):
        return {"role": "user", "content": "\n\n".join(results)}


def files() -> list[str]:
    return sorted(str(p.relative_to(PROJECT)) for p in PROJECT.rglob("*") if p.is_file())


def numbered(path: str, limit: int = 40) -> str:
    lines = (PROJECT / path).read_text().splitlines()[:limit]
    return "\n".join(f"{i}: {line}" for i, line in enumerate(lines, 1))


def complete(llm, dialect, messages, paths, force=False) -> str:
    prompt = dialect.render(messages, TOOLS)
    text = dialect.grammar(TOOLS, paths, force, messages=messages)
    grammar = llama_cpp.LlamaGrammar.from_string(text, verbose=False)
    out = llm.create_completion(prompt=prompt, grammar=grammar,
                                max_tokens=60, temperature=0.0)
    return out["choices"][0]["text"]


def run(llm, dialect) -> dict[str, int]:
    score = {"call": 0, "right_file": 0, "answered": 0, "correct": 0, "forced_correct": 0}
    paths = files()
    layout = "The project folder contains:\n" + "\n".join(paths)
    for question, path, word in QUESTIONS:
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": f"{layout}\n\nQuestion: {question}"}]
        first = dialect.parse(complete(llm, dialect, messages, paths))
        call = first.tool_calls[0] if first.tool_calls else None
        score["call"] += call is not None
        score["right_file"] += bool(call and call.arguments.get("path") == path)
        messages += [{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {
            "name": "read_file", "arguments": {"path": path}}}]},
            {"role": "tool", "tool_call_id": "c1", "content": numbered(path)}]
        second = dialect.parse(complete(llm, dialect, messages, paths))
        score["answered"] += not second.tool_calls
        score["correct"] += word.lower() in second.content.lower()
        forced = dialect.parse(complete(llm, dialect, messages, paths, force=True))
        score["forced_correct"] += word.lower() in forced.content.lower()
        print(f"  {question!r}: call={call and (call.name, call.arguments)} "
              f"second={(second.tool_calls or second.content)!r:.90} forced={forced.content!r:.90}",
              file=sys.stderr)
    return score


def main() -> None:
    # n_batch=1: on this build machine batched prompt evaluation dies with SIGILL (see notes)
    load_cpu_variants(Path(llama_cpp.__file__).parent)  # the portable build's CPU code
    llm = llama_cpp.Llama(model_path=str(MODEL), n_ctx=4096, n_batch=1, verbose=False, seed=1)
    print(f"format   results   call right_file answered correct forced_correct (of {len(QUESTIONS)}) seconds")
    variants = [(f, "nudge", GenericDialect) for f in FORMATS] + [("json", "plain", NoNudge)]
    if "--confirm" in sys.argv:  # the shipped defaults only
        variants = [("tagged", "shipped", GenericDialect)]
    elif "--final" in sys.argv:  # second round: the chosen format, with variants of the wording
        variants = [("tagged", "nudge", GenericDialect), ("tagged", "plain", NoNudge),
                    ("tagged", "readfirst", ReadFirst)]
    for fmt, label, cls in variants:
        dialect = cls(llm.metadata.get("tokenizer.chat_template"), call_format=fmt)
        start = time.perf_counter()
        s = run(llm, dialect)
        print(f"{fmt:8} {label:9} {s['call']:4} {s['right_file']:10} {s['answered']:8} "
              f"{s['correct']:7} {s['forced_correct']:14} {time.perf_counter() - start:8.1f}",
              flush=True)
    print("prompts:", prompts.GENERIC_TOOL_INTRO.splitlines()[1])


if __name__ == "__main__":
    main()
