"""Figures 2 and 3: KV-cache reuse over a 5-step tool loop, and time to first token on turns 2..5.

The loop is Burrow's real one (run_question, real executor, real backend on the real GGUF). The
tiny default model rarely chooses to make four tool calls in a row, so a thin proxy replaces the
*decision* in turns 1-4 with a fixed tool call; everything measured (rendering, splicing onto the
cached transcript, evaluating, the tool results the executor really returns) stays real. The
backend keeps the model's own generated tokens in its transcript, so the proxy cannot help reuse.
"""

from __future__ import annotations

import dataclasses
import json
import time
from itertools import pairwise
from typing import Any

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import progress
from bench.timing import median

LOOP = ("loop_prompt", "prompt tokens evaluated, 5-step tool loop", "tok", Target(1.15))
TTFT = ("ttft", "time to first token, turns 2..5 (sum)", "s", Target(1.2))
STEPS = 5
# Each turn adds one real tool result. Kept small: on a loaded 2-core machine prompt evaluation
# runs at ~40 tokens/s, and the reference evaluates the whole conversation once more.
CALLS = [
    ("find_files", {"pattern": "**/*.py"}),
    ("read_file", {"path": "larder/store.py"}),
    ("search_text", {"pattern": "EXPIRY_WARNING_DAYS"}),
    ("read_file", {"path": "larder/report.py"}),
]
QUESTION = "How does Larder decide which items expire soon?"


class ForcedCalls:
    """A ChatModel proxy: real generation, but turns 1-4 end in the next fixed tool call."""

    def __init__(self, model: Any, calls: list[tuple[str, dict]]) -> None:
        self.model, self.calls, self.turns = model, list(calls), []
        self.name, self.dialect_name = model.name, model.dialect_name
        self.context_length = model.context_length

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def generate(self, request: Any, cancel: Any = None):
        from app.llm.base import ParsedReply, ParsedToolCall, TurnCompleted

        called = time.perf_counter()
        for event in self.model.generate(request, cancel):
            if isinstance(event, TurnCompleted):
                self.turns.append({"called": called, "completed": event})
                if self.calls and not request.force_answer:
                    name, args = self.calls.pop(0)
                    call = ParsedToolCall(name, args, json.dumps(args), f"bench_{len(self.turns)}")
                    event = dataclasses.replace(event, reply=ParsedReply("", (call,)))
            yield event


def run_loop(ctx: BenchContext, model: Any) -> list[Any]:
    """One question through the real loop; the TurnCompleted of each model turn, in order."""
    from app.harness.calls import ToolExecutor
    from app.harness.loop import run_question
    from app.settings import Settings
    from app.workspace import Workspace

    settings = Settings(max_steps=STEPS, temperature=0.0, max_answer_tokens=32,
                        force_answer_after_read="never", n_threads=ctx.threads)
    workspace = Workspace(ctx.fixture, settings)
    proxy = ForcedCalls(model, CALLS)
    model.reset()
    events = list(run_question(QUESTION, workspace=workspace, model=proxy,
                               executor=ToolExecutor(workspace, settings), settings=settings))
    stopped = events[-1]
    if len(proxy.turns) < STEPS:
        raise RuntimeError(f"the loop ran {len(proxy.turns)} turns, not {STEPS} "
                           f"(stopped: {getattr(stopped, 'reason', '?')} {getattr(stopped, 'message', '')})")
    return [t["completed"] for t in proxy.turns]


def _tokens(raw: Any, text: str) -> list[int]:
    from bench.fig_model import _prompt_tokens

    return _prompt_tokens(None, raw, text)


def raw_new_token_seconds(raw: Any, turns: list[Any]) -> list[dict]:
    """For turns 2..n: raw llama evaluates only what a perfect cache would not hold, to 1 token.

    The raw context is walked forward like a cache would be (untimed: bring it to what the last
    turn left, prompt and reply; cut it to what the new prompt shares), so each token is evaluated
    about once; only the evaluation of the new tokens and the first greedy token is timed.
    """
    out = []
    raw.reset()
    for before, turn in pairwise(turns):
        _advance(raw, _tokens(raw, before.prompt + before.raw))
        tokens = _tokens(raw, turn.prompt)
        common = min(_common_prefix(raw.input_ids[: raw.n_tokens].tolist(), tokens), len(tokens) - 1)
        _truncate(raw, common)
        start = time.perf_counter()
        raw.eval(tokens[common:])
        _greedy_token(raw)
        out.append({"new_tokens": len(tokens) - common, "seconds": time.perf_counter() - start})
    return out


def _greedy_token(raw: Any) -> int:
    """The first token of the reply, greedy: argmax of the last logits (what sampling costs)."""
    import numpy as np

    return int(np.ctypeslib.as_array(raw._ctx.get_logits(), shape=(raw.n_vocab(),)).argmax())


def _common_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _truncate(raw: Any, n: int) -> None:
    if n < raw.n_tokens:
        raw._ctx.kv_cache_seq_rm(-1, n, -1)
        raw.n_tokens = n


def _advance(raw: Any, tokens: list[int]) -> None:
    _truncate(raw, _common_prefix(raw.input_ids[: raw.n_tokens].tolist(), tokens))
    if raw.n_tokens < len(tokens):
        raw.eval(tokens[raw.n_tokens:])


def _one_run(ctx: BenchContext, model: Any, raw: Any) -> dict:
    turns = run_loop(ctx, model)
    progress("tool loop: " + ", ".join(f"{t.usage.prompt_tokens}+{t.usage.cached_tokens}" for t in turns))
    ref = raw_new_token_seconds(raw, turns)
    usage = [t.usage for t in turns]
    return {
        "evaluated": [u.prompt_tokens for u in usage], "cached": [u.cached_tokens for u in usage],
        "prompt_total": [u.prompt_total for u in usage], "completion": [u.completion_tokens for u in usage],
        "first_token_seconds": [u.first_token_seconds for u in usage],
        "raw_new_tokens": [r["new_tokens"] for r in ref], "raw_eval_seconds": [r["seconds"] for r in ref],
        "stop_reasons": [t.stop_reason for t in turns],
    }


def measure(ctx: BenchContext, model: Any, raw: Any) -> list[FigureResult]:
    from bench.runner import guarded

    runs: list[dict] = []

    def loop_figure(c: BenchContext) -> FigureResult:
        runs.extend(_one_run(c, model, raw) for _ in range(max(1, min(c.reps, 2))))
        return _loop_result(runs)

    loop = guarded(LOOP, loop_figure, ctx)
    ttft = guarded(TTFT, lambda c: _ttft_result(runs), ctx)
    return [loop, ttft]


def _loop_result(runs: list[dict]) -> FigureResult:
    run = runs[0]  # token counts are the same in every run (greedy, same prompts)
    final = run["prompt_total"][-1]
    key, title, unit, target = LOOP
    details = {"runs": runs, "no_reuse_tokens": sum(run["prompt_total"]),
               "no_reuse_ratio": sum(run["prompt_total"]) / final}
    return FigureResult(key, title, unit, target, float(sum(run["evaluated"])), float(final),
                        "final context length", details=details)


def _ttft_result(runs: list[dict]) -> FigureResult:
    if not runs:
        raise RuntimeError("the tool loop did not run (see the loop figure)")
    ours = [sum(r["first_token_seconds"][1:]) for r in runs]
    theirs = [sum(r["raw_eval_seconds"]) for r in runs]
    key, title, unit, target = TTFT
    details = {"burrow_sums": ours, "raw_sums": theirs,
               "burrow_evaluated_turns_2_5": runs[0]["evaluated"][1:],
               "raw_new_tokens_turns_2_5": runs[0]["raw_new_tokens"]}
    return FigureResult(key, title, unit, target, median(ours), median(theirs),
                        "raw eval of only the new tokens", details=details)
