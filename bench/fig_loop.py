"""Figures 2 and 3: KV-cache reuse over a 5-step tool loop, and time to first token on turns 2..5.

The loop is Burrow's real one (run_question, real executor, real backend on the real GGUF). The
tiny default model rarely chooses to make four tool calls in a row, so a thin proxy replaces the
*decision* in turns 1-4 with a fixed tool call; everything measured (rendering, splicing onto the
cached transcript, evaluating, the tool results the executor really returns) stays real. The
backend keeps the model's own generated tokens in its transcript, so the proxy cannot help reuse.

The reference for turn k is measured right after Burrow's turn k (so a burst of load from a
neighbour hits both): a raw llama-cpp-python context holding what a perfect cache would hold
evaluates only the tokens of turn k that are new, plus the greedy first token.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import guarded, progress
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


class RawReference:
    """A raw llama context walked forward like a perfect cache; times only each turn's new tokens."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.samples: list[dict] = []
        raw.reset()

    def measure(self, before: Any, turn: Any) -> None:
        """`before` and `turn` are consecutive TurnCompleted events of Burrow's loop."""
        raw = self.raw
        self._advance(self._tokens(before.prompt + before.raw))  # untimed: what the cache holds
        tokens = self._tokens(turn.prompt)
        common = min(_common_prefix(raw.input_ids[: raw.n_tokens].tolist(), tokens), len(tokens) - 1)
        self._truncate(common)
        start = time.perf_counter()
        raw.eval(tokens[common:])
        _greedy_token(raw)
        self.samples.append({"new_tokens": len(tokens) - common, "seconds": time.perf_counter() - start})

    def _tokens(self, text: str) -> list[int]:
        from bench.fig_model import prompt_tokens

        return prompt_tokens(self.raw, text)

    def _truncate(self, n: int) -> None:
        if n < self.raw.n_tokens:
            self.raw._ctx.kv_cache_seq_rm(-1, n, -1)
            self.raw.n_tokens = n

    def _advance(self, tokens: list[int]) -> None:
        self._truncate(_common_prefix(self.raw.input_ids[: self.raw.n_tokens].tolist(), tokens))
        if self.raw.n_tokens < len(tokens):
            self.raw.eval(tokens[self.raw.n_tokens:])


def _greedy_token(raw: Any) -> int:
    """The reply's first token, greedy: argmax of the last logits."""
    import numpy as np

    return int(np.ctypeslib.as_array(raw._ctx.get_logits(), shape=(raw.n_vocab(),)).argmax())


def _common_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


class ForcedCalls:
    """A ChatModel proxy: real generation, but turns 1-4 end in the next fixed tool call."""

    def __init__(self, model: Any, calls: list[tuple[str, dict]], reference: RawReference) -> None:
        self.model, self.calls, self.reference = model, list(calls), reference
        self.turns: list[Any] = []
        self.name, self.dialect_name = model.name, model.dialect_name
        self.context_length = model.context_length

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def warm(self, messages: Any, tools: Any, scope: str = "") -> Any:
        return self.model.warm(messages, tools, scope)

    def generate(self, request: Any, cancel: Any = None):
        from app.llm.base import ParsedReply, ParsedToolCall, TurnCompleted

        for event in self.model.generate(request, cancel):
            if isinstance(event, TurnCompleted):
                self.turns.append(event)
                if self.calls and not request.force_answer:
                    name, args = self.calls.pop(0)
                    call = ParsedToolCall(name, args, json.dumps(args), f"bench_{len(self.turns)}")
                    event = dataclasses.replace(event, reply=ParsedReply("", (call,)))
            yield event
        if len(self.turns) >= 2:
            self.reference.measure(self.turns[-2], self.turns[-1])


def run_loop(ctx: BenchContext, model: Any, raw: Any) -> tuple[list[Any], list[dict]]:
    """One question through the real loop: each turn's TurnCompleted, and the reference samples."""
    from app.harness.session import Session
    from app.settings import Settings

    settings = Settings(max_steps=STEPS, temperature=0.0, max_answer_tokens=32,
                        force_answer_after_read="never", n_threads=ctx.threads)
    proxy = ForcedCalls(model, CALLS, RawReference(raw))
    model.reset()
    with Session.open(ctx.fixture, proxy, settings) as session:
        events = list(session.ask(QUESTION))
    if len(proxy.turns) < STEPS:
        stopped = events[-1]
        raise RuntimeError(f"the loop ran {len(proxy.turns)} turns, not {STEPS} "
                           f"(stopped: {getattr(stopped, 'reason', '?')} {getattr(stopped, 'message', '')})")
    return proxy.turns, proxy.reference.samples


def _one_run(ctx: BenchContext, model: Any, raw: Any) -> dict:
    turns, ref = run_loop(ctx, model, raw)
    usage = [t.usage for t in turns]
    progress("tool loop evaluated+cached: " + ", ".join(f"{u.prompt_tokens}+{u.cached_tokens}" for u in usage))
    return {
        "evaluated": [u.prompt_tokens for u in usage], "cached": [u.cached_tokens for u in usage],
        "prompt_total": [u.prompt_total for u in usage], "completion": [u.completion_tokens for u in usage],
        "first_token_seconds": [u.first_token_seconds for u in usage],
        "raw_new_tokens": [r["new_tokens"] for r in ref], "raw_eval_seconds": [r["seconds"] for r in ref],
        "stop_reasons": [t.stop_reason for t in turns],
    }


def measure(ctx: BenchContext, model: Any, raw: Any) -> list[FigureResult]:
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
               "per_turn_ratios": [[round(a / b, 2) for a, b in zip(r["first_token_seconds"][1:],
                                                                  r["raw_eval_seconds"], strict=True)]
                                   for r in runs],
               "burrow_evaluated_turns_2_5": runs[0]["evaluated"][1:],
               "raw_new_tokens_turns_2_5": runs[0]["raw_new_tokens"]}
    return FigureResult(key, title, unit, target, median(ours), median(theirs),
                        "raw eval of only the new tokens", details=details)
