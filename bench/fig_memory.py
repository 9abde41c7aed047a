"""Figure 8: peak memory of `python -m app ask` against what the model itself must occupy.

The floor is the model file (mapped, and touched while the answer is computed) plus the KV cache
llama.cpp allocates for the context: n_layer * n_ctx * (n_head_kv * (key_dim + value_dim)) * 2
bytes (f16). What is above that floor is Burrow's own overhead: Python, Qt-free imports, tools.
"""

from __future__ import annotations

import json

from bench.context import BenchContext
from bench.fixture import QUESTION
from bench.report import FigureResult, Target
from bench.timing import child_env, python, run_child

MEMORY = ("peak_rss", "peak memory of ask", "MB", Target(None))
MB = 1e6
F16_BYTES = 2


def kv_cache_bytes(ctx: BenchContext) -> tuple[int, dict]:
    """KV size for Burrow's default context, from the GGUF header alone."""
    from app.llm.gguf import read_header
    from app.settings import Settings

    header = read_header(ctx.model_path)
    arch = header.architecture
    get = lambda k, d=0: header.get(f"{arch}.{k}", d)  # noqa: E731
    n_head = int(get("attention.head_count"))
    n_head_kv = int(get("attention.head_count_kv", n_head) or n_head)
    head_dim = int(get("embedding_length")) // n_head
    k_dim, v_dim = int(get("attention.key_length", head_dim)), int(get("attention.value_length", head_dim))
    n_ctx = min(Settings().n_ctx, header.context_length or Settings().n_ctx)
    n_layer = int(get("block_count"))
    size = n_layer * n_ctx * n_head_kv * (k_dim + v_dim) * F16_BYTES
    return size, {"n_layer": n_layer, "n_ctx": n_ctx, "n_head_kv": n_head_kv, "key_dim": k_dim,
                  "value_dim": v_dim, "kv_bytes": size}


def measure_memory(ctx: BenchContext) -> FigureResult:
    kv, shape = kv_cache_bytes(ctx)
    model_bytes = ctx.model_path.stat().st_size
    argv = [python(), "-m", "bench.app_shim", "ask", "--workspace", str(ctx.fixture), "--model", str(ctx.model_path),
            "--json", QUESTION]
    run = run_child(argv, env=child_env(BURROW_HOME=str(ctx.burrow_home)), timeout=300)
    if run.returncode != 0:
        tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"ask exited {run.returncode}: {tail}")
    floor = model_bytes + kv
    key, title, unit, target = MEMORY
    overhead = (run.peak_rss_bytes - floor) / MB
    details = {**shape, "model_file_bytes": model_bytes, "peak_rss_bytes": run.peak_rss_bytes,
               "overhead_mb": overhead, "ask_seconds": run.seconds, "ask_usage": _usage(run.stdout),
               "command": "python -m app ask --workspace FIXTURE --model MODEL --json QUESTION"}
    return FigureResult(key, title, unit, target, run.peak_rss_bytes / MB, floor / MB,
                        "model file + KV cache", note=f"overhead {overhead:.0f} MB over the floor",
                        details=details)


def _usage(stdout: str) -> dict:
    try:
        return json.loads(stdout[stdout.index("{"):]).get("usage", {})
    except ValueError:
        return {}


def measure(ctx: BenchContext) -> list[FigureResult]:
    from bench.runner import guarded

    return [guarded(MEMORY, measure_memory, ctx)]
