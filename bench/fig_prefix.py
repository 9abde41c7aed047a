"""Figure: time to first token of a new question, after a restart, against raw evaluation of only
that question's own tokens.

Every first prompt starts with the same prefix (template opening + system prompt + tool schemas +
the workspace layout). The backend evaluates it once per model and workspace and keeps its KV
state on disk (app/llm/llama_state.py),
so a fresh `load_model` + `warm` loads it instead. Burrow's side: a freshly loaded model, warmed
(from the state file an earlier load wrote), answers a real question through the real Session;
its first turn's first_token_seconds is the figure. The reference: a raw llama context already
holding exactly that prefix evaluates the rest of the same prompt tokens plus the greedy first
token, timed right after Burrow's turn.
"""

from __future__ import annotations

import time
from typing import Any

from bench.context import BenchContext
from bench.report import FigureResult, Target
from bench.runner import guarded, progress
from bench.timing import median

PREFIX = ("prefix_ttft", "time to first token, new question after a restart", "s", Target(1.1))  # issue 24
# One sample is ~1.6 s on each side and pairs swung from 0.90 to 1.19 in one run of five on this VM
# (2026-12-06 22:47; medians 1.80 / 1.56 s): nine pairs steady the medians for ~15 s more.
PAIRS = 9
QUESTION = "Which setting decides how many days before expiry an item is reported?"


def measure(ctx: BenchContext, settings: Any, raw: Any) -> list[FigureResult]:
    return [guarded(PREFIX, lambda c: _figure(c, settings, raw), ctx)]


def _figure(ctx: BenchContext, settings: Any, raw: Any) -> FigureResult:
    from app.llm.llama_backend import load_model

    shared = _shared(ctx, settings)
    load_model(ctx.model_path, settings).warm(*shared)  # writes the state file
    samples = [_one(ctx, load_model(ctx.model_path, settings), settings, shared, raw)
               for _ in range(max(ctx.reps, PAIRS))]
    ours, theirs = median([s["ours"] for s in samples]), median([s["raw"] for s in samples])
    progress(f"prefix: ours {ours:.3f}s vs raw {theirs:.3f}s over {samples[0]['new_tokens']} new tokens")
    key, title, unit, target = PREFIX
    return FigureResult(key, title, unit, target, ours, theirs, "raw eval of only the question's tokens",
                        details={"samples": samples})


def _shared(ctx: BenchContext, settings: Any) -> tuple[Any, list, str]:
    """What the loop warms for the fixture: system turn and layout (the default model's policy
    offers no tools), under the workspace's name."""
    from app.harness.first_prompt import shared_prefix
    from app.harness.session import open_toolbox

    tools = open_toolbox(ctx.fixture, settings)
    try:
        shared = shared_prefix(tools.layout(), tools.label)
    finally:
        tools.workspace.close()
    return shared.messages, [], shared.scope


def _one(ctx: BenchContext, model: Any, settings: Any, shared: tuple[Any, list, str], raw: Any) -> dict:
    from app.harness.events import ModelTurnFinished, PromptRendered
    from app.harness.session import Session
    from bench.raw_reference import RawReference, greedy_token, prompt_tokens

    warm = model.warm(*shared)
    with Session.open(ctx.fixture, model, settings) as session:
        events = list(session.ask(QUESTION))
    prompt = prompt_tokens(raw, next(e for e in events if isinstance(e, PromptRendered)).text)
    first = next(e for e in events if isinstance(e, ModelTurnFinished))
    RawReference(raw).advance(prompt[: warm.tokens])  # the raw side holds the same prefix, untimed
    started = time.perf_counter()
    raw.eval(prompt[warm.tokens:])
    greedy_token(raw)
    seconds = time.perf_counter() - started
    return {"ours": first.usage.first_token_seconds, "raw": seconds, "new_tokens": len(prompt) - warm.tokens,
            "prefix_tokens": warm.tokens, "prefix_loaded": warm.loaded,
            "evaluated": first.usage.prompt_tokens, "cached": first.usage.cached_tokens}
