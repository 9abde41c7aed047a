"""`python -m bench.eval.quote_probe`: does the model's own choice of a backing line tell right answers
from wrong ones? (issue 22's quote step, scored as whole lines: ../shared/notes/verdict-quick-checks.md)

    python -m bench.eval.quote_probe --rows docs/eval_rows/RUN.json [--ids a,b] [--json OUT]

For each recorded answer the question's first prompt is rebuilt as a replay does (the real index and
harness, a scripted model that gives back the recorded answer); then the default model reads that
prompt, its answer and one more user turn asking it to copy the line that states its answer, and
every candidate line (a line shown in the prompt that holds one of the answer's values or names, or
the question's subject) is scored by its log-probability as that reply, from the same evaluated
prompt (the KV cache rolled back to it for each candidate). Greedy constrained decoding picked
boilerplate in the notes' check; scoring whole lines does not commit to a prefix first.

Reports, per answer, the line the model rates best and whether it holds the answer's key claim, and
how well that and the scores separate right from wrong (AUROC) among the answers the verdict
labels. An experiment for the tuning sets: nothing in the app uses it unless it separates there and
holds on held-out answers.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from bench.eval import scratch_home

ROOT = Path(__file__).resolve().parents[2]
QUOTE_ASK = ("Copy, exactly, the one line shown above in the project's code or text that states your "
             "answer. Reply with that line only.")
MAX_CANDIDATES = 30
_FENCE = re.compile(r"^(`{3,})")


def shown_lines(prompt: str) -> list[str]:
    """The lines inside the prompt's fenced blocks (the code and text Burrow showed), stripped,
    each once, in order."""
    out: dict[str, None] = {}
    fence = ""
    for raw in prompt.splitlines():
        found = _FENCE.match(raw.strip())
        if found and (not fence or raw.strip() == fence):
            fence = "" if fence else found.group(1)
            continue
        text = raw.strip()
        if fence and len(text) >= 6 and re.search(r"\w", text) and text != "\u2026":
            out.setdefault(text, None)
    return list(out)


def candidates(lines: list[str], answer: str, question: str) -> list[str]:
    """The shown lines that hold a key claim of the answer or name the question's subject, those
    with claims first; at most MAX_CANDIDATES."""
    from app.harness.verdict import claims_of, names_subject, subject_of

    keys = [k for k in claims_of(answer, question).key if len(k) >= 2]
    subject = subject_of(question)
    scored = []
    for index, line in enumerate(lines):
        low = line.lower()
        claim = sum(k in low for k in keys)
        named = names_subject(subject, line)
        if claim or named:
            scored.append((-claim, -int(named), index, line))
    return [line for *_, line in sorted(scored)[:MAX_CANDIDATES]]


def _log_softmax_at(row: Any, token: int) -> float:
    import numpy as np

    top = float(np.max(row))
    return float(row[token] - top - math.log(float(np.sum(np.exp(row - top)))))


def score_lines(llm: Any, prefix: list[int], lines: list[str]) -> list[tuple[float, float]]:
    """(sum, mean) log-probability of each line (and the end of the turn) as the reply to `prefix`."""
    llm.reset()
    llm._logits_all = False  # the prompt's own logits are not needed: computing them all costs ~10 s
    llm.eval(prefix[:-1])
    llm._logits_all = True
    base = llm.n_tokens
    out = []
    for line in lines:
        tokens = list(llm.tokenize(line.encode("utf-8"), add_bos=False, special=False)) + [llm.token_eos()]
        llm.n_tokens = base
        llm.eval([prefix[-1], *tokens])  # row i: what follows the prompt and the line's first i tokens
        total = sum(_log_softmax_at(llm.scores[base + i], t) for i, t in enumerate(tokens))
        out.append((total, total / len(tokens)))
    return out


def auroc(scores: list[float], labels: list[bool]) -> float | None:
    """The chance a random right answer scores above a random wrong one (ties count half)."""
    right = [s for s, y in zip(scores, labels, strict=True) if y]
    wrong = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not right or not wrong:
        return None
    wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
    return wins / (len(right) * len(wrong))


def probe_row(row: dict[str, Any], question: Any, backend: Any, llm: Any, settings: Any) -> dict[str, Any]:
    from app.harness import events as ev
    from app.harness.session import Session
    from app.harness.verdict import claims_of, names_subject, subject_of
    from bench.eval.codebases import ensure_codebase
    from bench.eval.replay import _ReplayModel

    root = ensure_codebase(question.codebase)
    model = _ReplayModel([row["answer"]], backend, [row.get("token_logprobs")])
    with Session.open(root, model, settings) as session:
        events = list(session.ask(question.question))
    done = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    request = model._scripted.requests[0]
    messages = [*request.messages, {"role": "assistant", "content": row["answer"]},
                {"role": "user", "content": QUOTE_ASK}]
    prefix = backend._tokenize_prompt(backend._render(messages, (), True))
    lines = candidates(shown_lines(str(request.messages[-1].get("content") or "")), row["answer"],
                       question.question)
    out: dict[str, Any] = {"id": row["id"], "correct": bool(row["correct"]),
                           "support": done.support.value if done else "none",
                           "candidates": len(lines), "prompt_tokens": len(prefix)}
    if not lines:
        return out
    scored = score_lines(llm, prefix, lines)
    order = sorted(range(len(lines)), key=lambda i: -scored[i][1])
    best = lines[order[0]]
    keys = [k for k in claims_of(row["answer"], question.question).key if len(k) >= 2]
    second = scored[order[1]][1] if len(order) > 1 else -20.0
    out.update({"best": best, "best_mean": scored[order[0]][1], "best_sum": scored[order[0]][0],
                "margin": scored[order[0]][1] - second,
                "best_holds_claim": any(k in best.lower() for k in keys),
                "best_names_subject": names_subject(subject_of(question.question), best),
                "best_is_backing": bool(done) and any(b.text.strip() == best for b in done.backing),
                "lines": [[lines[i], round(scored[i][0], 3), round(scored[i][1], 3)] for i in order[:5]]})
    return out


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if "best" in r]
    labels = [r["correct"] for r in scored]
    summary: dict[str, Any] = {"answers": len(rows), "scored": len(scored), "right": sum(labels)}
    for feature in ("best_mean", "best_sum", "margin"):
        summary[f"auroc_{feature}"] = auroc([r[feature] for r in scored], labels)
    for flag in ("best_holds_claim", "best_names_subject", "best_is_backing"):
        on = [r for r in scored if r[flag]]
        summary[flag] = {"answers": len(on), "right": sum(r["correct"] for r in on)}
    for support in ("backed", "partly_backed", "not_backed"):
        group = [r for r in scored if r["support"] == support]
        both = [r for r in group if r["best_holds_claim"]]
        summary[support] = {"answers": len(group), "right": sum(r["correct"] for r in group),
                            "best_holds_claim": len(both), "best_holds_claim_right": sum(r["correct"] for r in both),
                            "auroc_best_mean": auroc([r["best_mean"] for r in group], [r["correct"] for r in group])}
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.eval.quote_probe", description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=Path, required=True, help="an eval run's --json rows")
    p.add_argument("--ids", default="", help="only these question ids (comma-separated)")
    p.add_argument("--json", type=Path, help="write the probed rows and the summary here")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(ROOT))
    scratch_home("burrow-quote-home-")
    import llama_cpp

    from app.llm.catalog import default_model_path
    from app.llm.cpu_backends import load_cpu_variants
    from app.llm.llama_backend import load_model
    from app.settings import Settings
    from bench.eval.questions import EvalSet, load_set

    load_cpu_variants(Path(llama_cpp.__file__).parent)
    backend = load_model(default_model_path(), Settings(n_ctx=512, n_threads=1))
    llm = llama_cpp.Llama(str(default_model_path()), n_ctx=4096, n_batch=512, n_threads=args.threads,
                          logits_all=True, verbose=False)
    settings = Settings(tool_policy="retrieval")
    questions = {q.id: q for s in EvalSet for q in load_set(s)}
    wanted = set(args.ids.split(",")) if args.ids else None
    rows = [r for r in json.loads(args.rows.read_text(encoding="utf-8"))
            if r["id"] in questions and (wanted is None or r["id"] in wanted)]
    out = []
    for row in rows:
        out.append(probe_row(row, questions[row["id"]], backend, llm, settings))
        r = out[-1]
        print(f"{r['id']:14} {'R' if r['correct'] else '-'} {r['support']:13} n={r['candidates']:2} "
              f"{r.get('best_mean', 0):6.2f} {'K' if r.get('best_holds_claim') else '.'} "
              f"{str(r.get('best', ''))[:70]}", file=sys.stderr, flush=True)
        if args.json:
            args.json.write_text(json.dumps({"rows": out, "summary": report(out)}, indent=1), encoding="utf-8")
    print(json.dumps(report(out), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
