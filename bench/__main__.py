"""`python -m bench`: run every figure, print the table, write bench/results.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

# OpenMP's wait policy as the app sets it (app.llm.llama_backend, before libgomp loads): the model
# group imports llama_cpp for its raw side before Burrow's backend, and every group runs in a child
# that inherits this, so both sides of every figure wait passively as `ask` and the window do.
# Until 2026-12-06 the model figures ran with OpenMP's default (spinning) policy.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from bench.context import DEFAULT_MODEL, BenchContext, find_rg, stdlib_tree
from bench.fixture import write_fixture
from bench.groups import GROUPS
from bench.llama_env import ENV_FLAG, prompt_eval_crashes
from bench.machine import describe, machine_info
from bench.report import FigureResult, markdown_table, text_table
from bench.runner import run_group_child
from bench.timing import REPO_ROOT


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--reps", type=int, default=5, help="repetitions per measurement (medians)")
    p.add_argument("--only", default="", help="comma-separated groups: " + ",".join(g.name for g in GROUPS))
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="GGUF file (default: the embedded model)")
    p.add_argument("--tree", type=Path, default=stdlib_tree(), help="large tree for the search figures")
    p.add_argument("--threads", type=int, default=None,
                   help="llama.cpp threads for both sides (default: Burrow's, or 1 on a busy machine)")
    p.add_argument("--out", type=Path, default=None,
                   help="results file (default bench/results.json; bench/results/partial.json with --only)")
    return p.parse_args(argv)


def run_groups(ctx: BenchContext, only: set[str], env: dict[str, str]) -> list[FigureResult]:
    results: list[FigureResult] = []
    for group in GROUPS:
        if only and group.name not in only:
            continue
        print(f"[bench] {group.name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        results += run_group_child(group.name, group.specs, ctx, group.timeout_s, env)
        print(f"[bench] {group.name} done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return results


def choose_threads(requested: int | None, machine: dict) -> int:
    """Burrow's default (physical cores) unless the machine is already busier than it has cores.

    llama.cpp's worker threads spin at barriers: with every core taken by someone else, two
    threads on two cores ran 15x slower than one here. Both sides always get the same number.
    """
    from app.settings import Settings

    if requested:
        return requested
    busy = os.getloadavg()[0] >= (machine.get("logical_cores") or 1)
    threads = 1 if busy else Settings().n_threads
    machine["threads_note"] = "1 thread: load average above the core count" if busy else "Burrow's default"
    return threads


def write_settings(ctx: BenchContext) -> None:
    """The app children (ask, the window) read settings from BURROW_HOME: same threads there."""
    from app.paths import app_paths
    from app.settings import Settings, save_settings

    save_settings(Settings(n_threads=ctx.threads), app_paths().ensure().settings_file)


def llama_workaround(model: Path, machine: dict) -> dict[str, str]:
    """Probe for the AMX crash (see bench.llama_env); record it and turn the workaround on."""
    crash = prompt_eval_crashes(model) if model.is_file() else ""
    machine["llama_prompt_eval_crash"] = crash or None
    machine["llama_extra_bufts_off"] = bool(crash)
    return {ENV_FLAG: "1"} if crash else {}


RUN_KEYS = ("command", "machine", "seconds", "figures", "table_markdown")  # a run's own; the rest is kept


def write_results(path: Path, machine: dict, results: list[FigureResult], seconds: float, ctx: BenchContext) -> None:
    """The figures of this run; the sections other commands merged into the file (the eval's runs,
    verdict replays) are kept as they were."""
    machine = {**machine, "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    kept = _other_sections(path)
    data = {
        "command": "python -m bench" + (f" --reps {ctx.reps}" if ctx.reps != 5 else ""),
        "machine": machine,
        "seconds": round(seconds, 1),
        "figures": [r.to_json() for r in results],
        "table_markdown": markdown_table(results),
    }
    data.update({k: v for k, v in kept.items() if k not in data})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")


def _other_sections(path: Path) -> dict:
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in old.items() if k not in RUN_KEYS} if isinstance(old, dict) else {}



def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    only = {g for g in args.only.split(",") if g}
    unknown = only - {g.name for g in GROUPS}
    if unknown:
        print(f"bench: unknown group(s) {', '.join(sorted(unknown))}; choose from "
              f"{', '.join(g.name for g in GROUPS)}", file=sys.stderr)
        return 2
    if args.reps < 1 or (args.threads is not None and args.threads < 1):
        print("bench: --reps and --threads must be at least 1", file=sys.stderr)
        return 2
    out = args.out or REPO_ROOT / ("bench/results/partial.json" if only else "bench/results.json")
    rg = find_rg()
    machine = machine_info(rg)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="burrow-bench-") as scratch:
        threads = choose_threads(args.threads, machine)
        machine["n_threads"] = threads
        ctx = BenchContext(args.model.resolve(), rg, args.tree.resolve(), Path(scratch), args.reps, threads)
        os.environ["BURROW_HOME"] = str(ctx.burrow_home)  # never touch the user's own settings
        write_settings(ctx)
        write_fixture(ctx.fixture)
        env = llama_workaround(ctx.model_path, machine)
        results = run_groups(ctx, only, env)
    seconds = time.perf_counter() - start
    print(f"\nMachine: {describe(machine)}\n")
    print(text_table(results))
    write_results(out, machine, results, seconds, ctx)
    shown = out.relative_to(REPO_ROOT) if out.is_relative_to(REPO_ROOT) else out
    print(f"\n{len(results)} figures in {seconds:.0f} s; wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
