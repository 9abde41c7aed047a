"""`python -m bench.eval`: ask the eval's questions through the real harness and score them.

    python -m bench.eval [--set tuning|tuning2|tuning3|heldout] [--model NAME_OR_PATH] [--codebase NAME]
                         [--limit N] [--policy off|offered|first_call] [--set KEY=VALUE]
                         [--server URL [--server-model NAME]]
                         [--json OUT] [--table docs/eval.md]

`--set tuning` (the default) asks the tuning set (questions.json), `--set tuning2` the second
tuning set (tuning2.json: five other code bases, one per language), `--set tuning3` the third
(tuning3.json: the held-out set until 2026-12-02), `--set heldout` the held-out set (heldout.json:
tune nothing on it; docs/eval.md says how its runs are written down). Code
bases are fetched and cached on first use (~/.cache/burrow-eval). Each run is merged into
bench/results.json under "eval" (other keys are kept) and its tables written to --table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

from bench.eval import scratch_home

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results.json"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="", help="catalog name or .gguf path (default: the default)")
    p.add_argument("--server", default="", metavar="URL",
                   help="ask a model on an inference server (Ollama, LM Studio, llama-server; "
                   "as `ask --server`) instead of loading --model in-process")
    p.add_argument("--server-model", default="", metavar="NAME",
                   help="the server's model (default: its first)")
    p.add_argument("--codebase", default="", help="only this code base's questions")
    p.add_argument("--limit", type=int, default=0, help="at most N questions (per code base)")
    p.add_argument("--ids", default="", help="only these question ids (comma-separated)")
    p.add_argument("--policy", choices=("auto", "retrieval", "offered", "first_call"), default=None,
                   help="the tool policy setting (default: auto, the model's measured best)")
    p.add_argument("--set", action="append", default=[], metavar="SET|KEY=VALUE",
                   help="tuning, tuning2, tuning3 or heldout: the question set (default tuning); KEY=VALUE: "
                   "override another setting for this run")
    p.add_argument("--threads", type=int, default=0,
                   help="llama.cpp threads (default: Burrow's, or 1 when the machine is busy)")
    p.add_argument("--json", type=Path, help="write every question's row here (as it goes)")
    p.add_argument("--table", type=Path, help="write the markdown table of all runs here")
    p.add_argument("--results", type=Path, default=RESULTS, help="results file to merge into")
    p.add_argument("--from-rows", type=Path, action="append", default=[], metavar="ROWS",
                   help="run nothing: summarize --json row files of runs split across processes "
                   "(one per code base) as one run of --model with --policy, and merge it")
    p.add_argument("--scope", default="all", help="scope label for --from-rows")
    p.add_argument("--merge-from", type=Path, action="append", default=[], metavar="FILE",
                   help="run nothing: merge the eval runs of FILE (another --results) into "
                   "--results and rewrite --table (for runs made side by side)")
    args = p.parse_args(argv)
    try:
        args.question_set, args.set = split_set_args(args.set)
    except ValueError as exc:
        p.error(str(exc))
    return args


def split_set_args(values: list[str]) -> tuple[str, list[str]]:
    """`--set` names the question set (tuning, tuning2, tuning3, heldout) or overrides a setting
    (KEY=VALUE)."""
    from bench.eval.questions import EvalSet

    names = [v for v in values if "=" not in v]
    unknown = [v for v in names if v not in {s.value for s in EvalSet}]
    if unknown:
        raise ValueError(f"--set {unknown[0]}: expected tuning, heldout, tuning2, tuning3 or KEY=VALUE")
    if len(set(names)) > 1:
        raise ValueError("--set: choose one question set")
    return (names[0] if names else EvalSet.TUNING.value), [v for v in values if "=" in v]


def resolve_model(name: str) -> tuple[Path, str]:
    """The model file and its label: a .gguf path, a catalog name, or the default model."""
    from app.errors import ModelLoadError
    from app.llm.catalog import INSTALLED_MODEL_DIRS, default_model_path, load_catalog
    from app.llm.install import find_entry
    from app.paths import app_paths, project_root

    if not name:
        path = default_model_path()
        return path, path.stem
    if name.endswith(".gguf") or Path(name).is_file():
        return Path(name), Path(name).stem
    dirs = [app_paths().models_dir, project_root() / "models", *INSTALLED_MODEL_DIRS]
    entry = find_entry(load_catalog().models, name)
    path = next((d / entry.file for d in dirs if (d / entry.file).is_file()), None)
    if path is None:
        raise ModelLoadError(f"{entry.id} is not installed; run: python -m app models install "
                             f"{entry.id}")
    return path, entry.id


def select(questions, args: argparse.Namespace) -> list:
    chosen = [q for q in questions if not args.codebase or q.codebase == args.codebase]
    if args.ids:
        wanted = set(args.ids.split(","))
        chosen = [q for q in chosen if q.id in wanted]
    if args.limit:
        per: dict[str, int] = {}
        chosen = [q for q in chosen if per.setdefault(q.codebase, 0) < args.limit
                  and not per.update({q.codebase: per[q.codebase] + 1})]
    return chosen


def scope_of(args: argparse.Namespace) -> str:
    # tuning keeps its old run keys; another set's scope starts with its name (heldout, tuning2, tuning3)
    question_set = getattr(args, "question_set", "tuning")
    parts = ["" if question_set == "tuning" else question_set,
             f"codebase={args.codebase}" if args.codebase else "",
             f"limit={args.limit}" if args.limit else "", "ids" if args.ids else ""]
    return ",".join(p for p in parts if p) or "all"


def choose_threads(requested: int) -> int | None:
    """As `python -m bench` does: with every core already taken by someone else, llama.cpp's
    spinning worker threads slow each other down, and one thread is faster than two."""
    if requested:
        return requested
    return 1 if os.getloadavg()[0] >= (os.cpu_count() or 1) else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(ROOT))
    if args.merge_from:
        return merge_only(args)
    if args.from_rows:
        return rows_only(args)
    from app.harness.loop import tool_policy
    from app.llm.llama_backend import load_model
    from app.llm.server_backend import connect_server
    from app.netguard import install_network_guard
    from app.settings import Settings
    from bench.eval.questions import load_set
    from bench.eval.report import merge_results, run_key, summarize
    from bench.eval.runner import print_row, run_questions

    model_path, label = resolve_model(args.model) if not args.server else (None, "")
    scratch_home("burrow-eval-home-")  # no user settings
    overrides = dict(item.split("=", 1) for item in args.set)
    if args.policy:
        overrides["tool_policy"] = args.policy
    threads = choose_threads(args.threads)
    if threads and "n_threads" not in overrides:
        overrides["n_threads"] = str(threads)
    load_at_start = round(os.getloadavg()[0], 1)
    settings = Settings.model_validate(overrides)
    questions = select(load_set(args.question_set), args)
    from bench.eval.codebases import ensure_codebase

    for name in sorted({q.codebase for q in questions}):
        ensure_codebase(name)  # fetch before the guard: the eval's own download, not the app's
    guard = install_network_guard()
    attempts_before = len(guard.attempts)  # the guard is process-wide: count this run's only
    if args.server:
        model = connect_server(args.server, args.server_model or None, settings)
        label = f"server:{model.model}"
    else:
        model = load_model(model_path, settings)
    print(f"[eval] {label} ({model.dialect_name}), {len(questions)} questions, "
          f"policy {tool_policy(settings, model)}, {settings.n_threads} threads, load {load_at_start}",
          file=sys.stderr, flush=True)
    started = time.perf_counter()
    rows: list[dict] = []

    def on_row(row: dict) -> None:
        rows.append(row)
        print_row(row)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")

    run_questions(questions, model, settings, on_row)
    run = {"model": label, "model_file": model_path.name if model_path else args.server,
           "dialect": model.dialect_name,
           "policy": tool_policy(settings, model), "scope": scope_of(args), "settings": overrides,
           "summary": summarize(rows), "seconds": round(time.perf_counter() - started, 1),
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
           "network_attempts": len(guard.attempts) - attempts_before, "threads": settings.n_threads,
           "load_avg": [load_at_start, round(os.getloadavg()[0], 1)],
           "rows": [{k: r[k] for k in ("id", "correct", "grounded", "seconds")} for r in rows]}
    run["question_set"] = args.question_set
    section = merge_results(args.results, run_key(label, run["policy"], run["scope"]), run)
    write_tables(args, section, run)
    return 0


def write_tables(args: argparse.Namespace, section: dict, run: dict) -> None:
    """The runs table, and this run's per-language and per-kind rows, to --table and stdout."""
    from bench.eval.report import BREAKDOWN_END, BREAKDOWN_START, breakdown_table, write_table

    breakdown = breakdown_table(run["summary"])
    if args.table:
        write_table(args.table, section["table_markdown"])
        write_table(args.table, f"{run['model']} | {run['policy']} | {run['scope']}\n\n{breakdown}",
                    BREAKDOWN_START, BREAKDOWN_END)
    print(json.dumps({k: v for k, v in run["summary"].items()
                      if k not in ("by_language", "by_kind")}, indent=1))
    print(breakdown)


def rows_only(args: argparse.Namespace) -> int:
    """One run from row files (the first row of each question id wins)."""
    from bench.eval.questions import load_set
    from bench.eval.report import merge_results, run_key, summarize

    rows: dict[str, dict] = {}
    for source in args.from_rows:
        for row in json.loads(source.read_text(encoding="utf-8")):
            rows.setdefault(row["id"], row)
    wanted = select([q for q in load_set(args.question_set) if q.id in rows], args)  # as a run
    chosen = [rows[i] for q in wanted for i in (q.id, q.id + "+") if i in rows]
    policy = args.policy or "auto"  # the setting's default: each model's measured best
    run = {"model": args.model, "policy": policy, "scope": args.scope, "summary": summarize(chosen),
           "note": f"assembled from {len(args.from_rows)} row files (processes side by side)",
           "question_set": args.question_set,
           "rows": [{k: r[k] for k in ("id", "correct", "grounded", "seconds")} for r in chosen]}
    section = merge_results(args.results, run_key(args.model, policy, args.scope), run)
    write_tables(args, section, run)
    return 0


def merge_only(args: argparse.Namespace) -> int:
    from bench.eval.report import merge_results, write_table

    section: dict = {}
    for source in args.merge_from:
        runs = json.loads(source.read_text(encoding="utf-8")).get("eval", {}).get("runs", {})
        for key, run in runs.items():
            section = merge_results(args.results, key, run)
    if args.table and section:
        write_table(args.table, section["table_markdown"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
