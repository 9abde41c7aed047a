"""Measure the real default model: load time, generation speed, cache reuse, cancel latency.

Run: .venv/bin/python tests/llm/measure_runtime.py   (numbers go to docs/runtime.md)
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_llm_backend import PATHS, READ_FILE, SYSTEM, CallOnlyDialect, _with_result  # noqa: E402

from app.llm.base import TextDelta, TurnCompleted, TurnRequest  # noqa: E402
from app.llm.catalog import default_model_path  # noqa: E402
from app.llm.gguf import read_header  # noqa: E402
from app.llm.llama_backend import load_model  # noqa: E402
from app.settings import Settings  # noqa: E402


def _complete(model, req, cancel=None) -> TurnCompleted:
    return [e for e in model.generate(req, cancel) if isinstance(e, TurnCompleted)][0]


def _cancel_latency(model) -> float:
    req = TurnRequest(messages=({"role": "user", "content": "Write a very long story about a dragon."},),
                      max_tokens=600, temperature=0.0)
    cancel, deltas, t0 = threading.Event(), 0, 0.0
    for event in model.generate(req, cancel):
        if isinstance(event, TextDelta):
            deltas += 1
            if deltas == 20:
                t0 = time.monotonic()
                cancel.set()
        elif isinstance(event, TurnCompleted):
            assert event.stop_reason == "cancelled", event.stop_reason
            return time.monotonic() - t0
    raise AssertionError("no TurnCompleted")


def main() -> None:
    settings = Settings()
    t = time.monotonic()
    model = load_model(default_model_path(), settings)
    print(f"load: {time.monotonic() - t:.3f} s (n_ctx={model.context_length}, threads={settings.n_threads})")
    story = TurnRequest(messages=({"role": "user", "content": "Write a long story about a dragon."},),
                        max_tokens=256, temperature=0.0)
    done = _complete(model, story)
    decode_s = done.usage.seconds - done.usage.first_token_seconds
    print(f"generation: {done.usage.completion_tokens} tokens, {done.usage.completion_tokens / decode_s:.1f} tok/s "
          f"(first token {done.usage.first_token_seconds * 1000:.0f} ms, prompt {done.usage.prompt_total} tokens)")
    lat = sorted(_cancel_latency(model) for _ in range(5))
    print(f"cancel latency over 5 runs: median {lat[2] * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms")
    # SmolLM2-135M nearly always answers instead of calling; the call-only grammar makes turn 1 a call
    h = read_header(default_model_path())
    model = load_model(default_model_path(), settings, dialect=CallOnlyDialect(
        h.chat_template, bos_token=h.token_texts["bos"], eos_token=h.token_texts["eos"]))
    messages = (SYSTEM, {"role": "user", "content": "Read the file src/app.py and tell me what it does."})
    t1 = _complete(model, TurnRequest(messages=messages, tools=(READ_FILE,), known_paths=PATHS, temperature=0.0))
    print("turn 1 calls:", [(c.name, c.arguments) for c in t1.reply.tool_calls])
    messages = _with_result(messages, t1, "def main():\n    print('ZEBRA-42 starts the web server')\n")
    t2 = _complete(model, TurnRequest(messages=messages, tools=(READ_FILE,), known_paths=PATHS,
                                      temperature=0.0, force_answer=True, max_tokens=60))
    messages = (*messages, {"role": "assistant", "content": t2.reply.content},
                {"role": "user", "content": "Which function is it in?"})
    t3 = _complete(model, TurnRequest(messages=messages, tools=(READ_FILE,), known_paths=PATHS,
                                      temperature=0.0, force_answer=True, max_tokens=60))
    for n, turn in ((1, t1), (2, t2), (3, t3)):
        u = turn.usage
        print(f"turn {n}: evaluated {u.prompt_tokens}, reused {u.cached_tokens}, generated "
              f"{u.completion_tokens}, {u.seconds:.3f} s; reply {turn.raw[:80]!r}")


if __name__ == "__main__":
    main()
