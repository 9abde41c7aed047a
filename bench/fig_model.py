"""Figures 1-3: the model runtime inside Burrow against raw llama-cpp-python, in one process.

Both sides load the same GGUF with the same settings (n_ctx, threads, batch, seed, mmap) and are
measured alternately. Burrow's side is its real backend (app.llm.llama_backend.load_model) and, for
the tool loop, its real harness (run_question) with the real executor on a real folder.
"""

from __future__ import annotations

from typing import Any

from bench import fig_loop, fig_prefix
from bench.context import BenchContext
from bench.raw_reference import prompt_tokens
from bench.report import FigureResult, Target
from bench.runner import guarded, progress
from bench.timing import interleaved, median

GEN = ("gen_tps", "generation tokens/s (backend as ask uses it)", "tok/s", Target(0.97, at_least=True))
GEN2 = ("gen_tps_2t", "generation tokens/s, 2 decode threads on both sides", "tok/s", Target(0.97, at_least=True))
TIMED = ("gen_tps_timed", "generation tokens/s, decode threads timed (opt-in) / half fixed", "tok/s",
         Target(None))
SPECS = [GEN, GEN2, TIMED, fig_loop.LOOP, fig_loop.TTFT, fig_prefix.PREFIX]

# Asks for a long answer so each generation has enough tokens to time the decode rate.
GEN_PROMPT = ("Explain in detail, step by step, how a hash table works: hashing, buckets, collisions, "
              "resizing, and the cost of each operation. Write at least three paragraphs.")
GEN_TOKENS = 128  # 64 (~0.5 s with SmolLM2) let one scheduler hiccup move a sample by 10%


def bench_settings(ctx: BenchContext) -> Any:
    """Burrow's default settings, with greedy decoding so both sides produce the same tokens, and
    the decode thread count fixed at the one Burrow starts with (the raw side's): the figures
    compare the work around each token, not the count Burrow would pick by timing
    (app.llm.decode_threads; that choice is measured in docs/bench.md)."""
    from app.llm.cpu_backends import generation_threads
    from app.settings import Settings

    return Settings(temperature=0.0, max_answer_tokens=GEN_TOKENS, n_threads=ctx.threads,
                    decode_threads=generation_threads(ctx.threads))


def load_pair(ctx: BenchContext, settings: Any) -> tuple[Any, Any]:
    """Burrow's ChatModel and a raw llama_cpp.Llama built with exactly the backend's arguments."""
    import llama_cpp

    from app.llm.cpu_backends import generation_threads
    from app.llm.gguf import read_header
    from app.llm.llama_backend import load_model

    model = load_model(ctx.model_path, settings)
    n_ctx = min(settings.n_ctx, read_header(ctx.model_path).context_length or settings.n_ctx)
    n_batch = min(settings.n_batch, n_ctx)
    raw = llama_cpp.Llama(
        model_path=str(ctx.model_path), n_ctx=n_ctx, n_batch=n_batch, n_ubatch=n_batch,
        n_threads=generation_threads(settings.n_threads), n_threads_batch=settings.n_threads,  # as Burrow
        flash_attn=settings.flash_attn,
        use_mmap=settings.use_mmap, n_gpu_layers=0, seed=settings.seed, verbose=False)
    return model, raw


def measure(ctx: BenchContext) -> list[FigureResult]:
    settings = bench_settings(ctx)
    model, raw = load_pair(ctx, settings)
    progress(f"loaded both models ({settings.n_threads} threads)")
    gen = guarded(GEN, lambda c: measure_generation(c, model, raw), ctx)
    rest = [*fig_loop.measure(ctx, model, raw), *fig_prefix.measure(ctx, settings, raw)]
    return [gen, _two_decode_threads(ctx, model, raw), _timed_threads(ctx, settings, model), *rest]


def _two_decode_threads(ctx: BenchContext, model: Any, raw: Any) -> FigureResult:
    """GEN2, measured last: with only one thread (`--threads 1`, or a busy machine), two decode
    threads stall each other at every token (3 tok/s at load 7 here) and would use up the group."""

    if note := _one_count_only(ctx):
        return FigureResult(*GEN2, note=note + "; run with --threads 2 on an idle machine")
    return guarded(GEN2, lambda c: _with_decode_threads(2, model, raw, lambda: measure_generation(
        c, model, raw, GEN2, 5)), ctx)


def _timed_threads(ctx: BenchContext, settings: Any, fixed: Any) -> FigureResult:
    """TIMED: Burrow with `time_decode_threads` on (opt-in: app.llm.decode_threads), against the
    same backend with the count fixed at the half it starts with (the default); both Burrow's, so
    the ratio is what the timing gains, or costs (its probes, where two threads are slower)."""
    from app.llm.llama_backend import load_model

    if note := _one_count_only(ctx):
        return FigureResult(*TIMED, note=note + "; one count has nothing to time against")

    def measure(c: BenchContext) -> FigureResult:
        timed = load_model(ctx.model_path,
                           settings.model_copy(update={"decode_threads": 0, "time_decode_threads": True}))
        timed.reset()
        list(timed.generate(_gen_request()))  # the timer's first probes, as after a load
        stats: list[dict] = []
        ours, theirs = interleaved(lambda: _burrow_decode(timed, _gen_request(), stats),
                                   lambda: _burrow_decode(fixed, _gen_request(), stats), max(c.reps, 5))
        details = {"timed_tps": ours, "fixed_tps": theirs, "runs": stats, "max_tokens": GEN_TOKENS,
                   "pair_ratios": [a / b for a, b in zip(ours, theirs, strict=True)],
                   "picked": timed._threads.describe()}
        return FigureResult(*TIMED, median(ours), median(theirs), "Burrow, decode threads fixed at half",
                            details=details)

    return guarded(TIMED, measure, ctx)


def _one_count_only(ctx: BenchContext) -> str:
    """Why two decode thread counts cannot be compared now ('' when they can): one thread given,
    or a busy machine, where two passive decode threads stall each other at every token (3 tok/s
    at load 7 here) and would use up the group."""
    import os

    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if ctx.threads < 2 or load >= cores:
        return f"not measured: {ctx.threads} thread(s), load {load:.1f} on {cores} cores"
    return ""


def _with_decode_threads(n: int, model: Any, raw: Any, measure: Any) -> FigureResult:
    """Both contexts decode with n threads (prompt batches keep theirs) for one measurement:
    Burrow decodes with half its threads (cpu_backends.generation_threads), so `--threads 2`
    alone measures 1 decode thread."""
    import llama_cpp

    contexts = [(m._ctx.ctx, int(m.context_params.n_threads), int(m.context_params.n_threads_batch))
                for m in (model._llm, raw)]
    for ctx, _, batch in contexts:
        llama_cpp.llama_set_n_threads(ctx, n, batch)
    try:
        return measure()
    finally:
        for ctx, threads, batch in contexts:
            llama_cpp.llama_set_n_threads(ctx, threads, batch)


# figure 1 -----------------------------------------------------------------------------------
def _burrow_decode(model: Any, request: Any, stats: list[dict]) -> float:
    """One turn through the backend; tokens/s after the first token, from its own Usage."""
    from app.llm.base import TurnCompleted

    model.reset()  # both sides evaluate the whole prompt every time
    done = [e for e in model.generate(request) if isinstance(e, TurnCompleted)][-1]
    u = done.usage
    progress(f"burrow generated {u.completion_tokens} tokens in {u.seconds:.1f} s")
    stats.append({"side": "burrow", "tokens": u.completion_tokens, "prompt": u.prompt_total,
                  "seconds": u.seconds, "first_token": u.first_token_seconds, "stop": done.stop_reason})
    return (u.completion_tokens - 1) / max(1e-9, u.seconds - u.first_token_seconds)


def _raw_decode(raw: Any, tokens: list[int], grammar: Any, stats: list[dict]) -> float:
    """The same prompt through llama-cpp-python's own streaming create_completion."""
    import time

    raw.reset()
    start = time.perf_counter()
    first, finish = 0.0, None
    stream = raw.create_completion(tokens, max_tokens=GEN_TOKENS, temperature=0.0, top_k=40, top_p=0.95,
                                   min_p=0.05, repeat_penalty=1.0, stream=True, grammar=grammar)
    for chunk in stream:
        first = first or time.perf_counter()
        finish = chunk["choices"][0].get("finish_reason") or finish
    end = time.perf_counter()
    # the token that reaches max_tokens is sampled but never evaluated (as in Burrow's count)
    generated = raw.n_tokens - len(tokens) + (finish == "length")
    progress(f"raw generated {generated} tokens in {end - start:.1f} s")
    stats.append({"side": "raw", "tokens": generated, "prompt": len(tokens), "seconds": end - start,
                  "first_token": first - start})
    return (generated - 1) / max(1e-9, end - first)


def _gen_request() -> Any:
    from app.llm.base import TurnRequest

    return TurnRequest(messages=({"role": "user", "content": GEN_PROMPT},), max_tokens=GEN_TOKENS,
                       temperature=0.0)


def measure_generation(ctx: BenchContext, model: Any, raw: Any, spec: tuple = GEN, reps: int = 5) -> FigureResult:
    from app.llm.base import TurnCompleted

    request = _gen_request()
    model.reset()
    prompt = [e for e in model.generate(request) if isinstance(e, TurnCompleted)][-1].prompt
    tokens = prompt_tokens(raw, prompt)
    grammar_text = model.dialect.grammar((), (), False)
    grammar = _grammar(grammar_text)
    stats: list[dict] = []
    ours, theirs = interleaved(lambda: _burrow_decode(model, request, stats),
                               lambda: _raw_decode(raw, tokens, grammar, stats), max(ctx.reps, reps))
    key, title, unit, target = spec
    details = {"burrow_tps": ours, "raw_tps": theirs, "runs": stats, "max_tokens": GEN_TOKENS,
               "pair_ratios": [a / b for a, b in zip(ours, theirs, strict=True)],
               "grammar_on_both": grammar is not None, "prompt_tokens": len(tokens),
               "reference": "Llama.create_completion(stream=True), same tokens, greedy, same samplers"}
    return FigureResult(key, title, unit, target, median(ours), median(theirs),
                        "raw llama-cpp-python", details=details)


def _grammar(text: str | None) -> Any:
    if not text:
        return None
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(text, verbose=False)
