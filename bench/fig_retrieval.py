"""Retrieval quality of the code index on the eval's question sets, overall and per language.

For each question the index returns its top 5 chunks. Span recall@5: a returned chunk overlaps
an evidence span (same file, shared lines). File recall@5: a returned chunk is in an evidence
file. The reference is a naive search in the same run: 40-line windows of every file ranked by
how many of the question's words they hold (what the first prompt used before the index).

The bench group (`measure`) reports the tuning set only: the held-out set is measured by hand,
with `--set heldout`, and each such run written down in docs/eval.md, so that no one tunes the
ranking on held-out misses by watching the bench. `--set tuning2` measures the second tuning
set (five other code bases, one per language), `--set tuning3` the third (the held-out set until
2026-12-02); `both` stays tuning and held-out.

    python -m bench.fig_retrieval [--set tuning|tuning2|tuning3|heldout|both] [--questions FILE]
                                  [--misses] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from bench.context import BenchContext
from bench.report import FigureResult, Target

SPAN = (
    "retrieval_span",
    "index span recall@5 (eval questions)",
    "share",
    Target(0.9, True, "measured"),
)
FILE = (
    "retrieval_file",
    "index file recall@5 (eval questions)",
    "share",
    Target(0.95, True, "measured"),
)
QUESTIONS = Path(__file__).resolve().parent / "eval" / "questions.json"
HELDOUT = Path(__file__).resolve().parent / "eval" / "heldout.json"
TUNING2 = Path(__file__).resolve().parent / "eval" / "tuning2.json"
TUNING3 = Path(__file__).resolve().parent / "eval" / "tuning3.json"
SETS = {"tuning": QUESTIONS, "heldout": HELDOUT, "tuning2": TUNING2, "tuning3": TUNING3}
BOTH = ("tuning", "heldout")  # what --set both measures
TOP = 5
NAIVE_WINDOW = 40


@dataclass(frozen=True)
class Outcome:
    id: str
    span: bool
    file: bool
    naive_span: bool
    naive_file: bool
    top: tuple[str, ...]  # 'path:start-end' of the returned chunks
    language: str = ""


def load_questions(path: Path) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["questions"] if isinstance(data, dict) else data


def evaluate(questions: list[dict]) -> list[Outcome]:
    from bench.eval.codebases import ensure_codebase, load_codebases

    catalog = load_codebases()
    outcomes: list[Outcome] = []
    for name in dict.fromkeys(q["codebase"] for q in questions):
        root = ensure_codebase(name)
        found = _evaluate_codebase(root, [q for q in questions if q["codebase"] == name])
        outcomes += [replace(o, language=catalog[name].language) for o in found]
    return outcomes


def by_language(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """Per language: questions, span and file recall@5, and the naive search's."""
    table: dict[str, dict[str, float]] = {}
    for language in sorted({o.language for o in outcomes}):
        group = [o for o in outcomes if o.language == language]
        n = len(group)
        table[language] = {"questions": n, "span": sum(o.span for o in group) / n,
                           "file": sum(o.file for o in group) / n,
                           "naive_span": sum(o.naive_span for o in group) / n,
                           "naive_file": sum(o.naive_file for o in group) / n}
    return table


def language_table(outcomes: list[Outcome]) -> str:
    """Markdown rows: each language, then all, with index and naive recall."""
    rows = by_language(outcomes)
    n = len(outcomes) or 1
    rows["all"] = {"questions": len(outcomes), "span": sum(o.span for o in outcomes) / n,
                   "file": sum(o.file for o in outcomes) / n,
                   "naive_span": sum(o.naive_span for o in outcomes) / n,
                   "naive_file": sum(o.naive_file for o in outcomes) / n}
    lines = ["| language | questions | span recall@5 | file recall@5 | naive span | naive file |",
             "|---|---|---|---|---|---|"]
    for language, r in rows.items():
        q = int(r["questions"])
        lines.append(f"| {language} | {q} | {_frac(r['span'], q)} | {_frac(r['file'], q)} | "
                     f"{_frac(r['naive_span'], q)} | {_frac(r['naive_file'], q)} |")
    return "\n".join(lines)


def _frac(share: float, n: int) -> str:
    return f"{round(share * n)}/{n} ({100 * share:.0f}%)"


def _evaluate_codebase(root: Path, questions: list[dict]) -> list[Outcome]:
    from app.index import CodeIndex
    from app.settings import Settings
    from app.workspace import Workspace

    settings = Settings()
    with Workspace(root, settings) as ws:
        index = CodeIndex.open(ws, settings)
        index.refresh()
        naive = NaiveSearch(ws)
        outcomes = [
            _judge(
                q,
                [(h.path, h.start_line, h.end_line) for h in index.search(q["question"], TOP)],
                naive.search(q["question"], TOP),
            )
            for q in questions
        ]
        index.close()
    return outcomes


def _judge(
    question: dict, hits: list[tuple[str, int, int]], naive: list[tuple[str, int, int]]
) -> Outcome:
    evidence = [(e["path"], e["start"], e["end"]) for e in question["evidence"]]
    return Outcome(
        question["id"],
        _span_hit(hits, evidence),
        _file_hit(hits, evidence),
        _span_hit(naive, evidence),
        _file_hit(naive, evidence),
        tuple(f"{p}:{s}-{e}" for p, s, e in hits),
    )


def _span_hit(hits: list[tuple[str, int, int]], evidence: list[tuple[str, int, int]]) -> bool:
    return any(p == ep and s <= ee and es <= e for p, s, e in hits for ep, es, ee in evidence)


def _file_hit(hits: list[tuple[str, int, int]], evidence: list[tuple[str, int, int]]) -> bool:
    return bool({p for p, _, _ in hits} & {ep for ep, _, _ in evidence})


class NaiveSearch:
    """Windows of every readable file, scored by the number of distinct question words they hold."""

    def __init__(self, ws) -> None:
        from app.index.terms import terms

        self._windows: list[tuple[str, int, int, set[str]]] = []
        for rel in ws.file_list(ws.settings.walk_max_entries):
            try:
                doc = ws.read_text(rel)
            except Exception:  # refused or unreadable: the naive search skips it as grep would
                continue
            lines = doc.text.split("\n")
            for start in range(0, len(lines), NAIVE_WINDOW):
                words = set(terms("\n".join(lines[start : start + NAIVE_WINDOW])))
                self._windows.append((rel, start + 1, min(len(lines), start + NAIVE_WINDOW), words))

    def search(self, question: str, top: int) -> list[tuple[str, int, int]]:
        from app.index.terms import query_terms

        wanted = set(query_terms(question))
        scored = sorted(self._windows, key=lambda w: -len(wanted & w[3]))
        return [(p, s, e) for p, s, e, _ in scored[:top]]


def figures(outcomes: list[Outcome]) -> list[FigureResult]:
    n = len(outcomes) or 1
    misses = [asdict(o) for o in outcomes if not o.span]
    span = sum(o.span for o in outcomes) / n
    file = sum(o.file for o in outcomes) / n
    naive_span = sum(o.naive_span for o in outcomes) / n
    naive_file = sum(o.naive_file for o in outcomes) / n
    details = {"questions": len(outcomes), "span_misses": misses,
               "by_language": by_language(outcomes)}
    return [
        FigureResult(*SPAN[:4], span, naive_span, "naive word-overlap windows", details=details),
        FigureResult(
            *FILE[:4],
            file,
            naive_file,
            "naive word-overlap windows",
            details={
                "questions": len(outcomes),
                "file_misses": [o.id for o in outcomes if not o.file],
            },
        ),
    ]


def measure(ctx: BenchContext) -> list[FigureResult]:
    os.environ["BURROW_HOME"] = str(ctx.scratch / "retrieval-home")
    return figures(evaluate(load_questions(QUESTIONS)))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fig_retrieval", description=__doc__)
    p.add_argument("--set", choices=(*SETS, "both"), default="tuning", dest="which",
                   help="which question set (default tuning)")
    p.add_argument("--questions", type=Path, help="a questions file instead of --set")
    p.add_argument("--misses", action="store_true", help="print each question the index missed")
    p.add_argument("--json", type=Path, help="write each set's figures and outcomes here")
    args = p.parse_args(argv)
    if args.questions:
        chosen = {args.questions.stem: args.questions}
    else:
        names = BOTH if args.which == "both" else (args.which,)
        chosen = {name: SETS[name] for name in names}
    report: dict[str, dict] = {}
    for name, path in chosen.items():
        with tempfile.TemporaryDirectory(prefix="burrow-retrieval-") as home:
            os.environ["BURROW_HOME"] = home
            questions = load_questions(path)
            outcomes = evaluate(questions)
        print(f"\n## {name} ({len(outcomes)} questions)")
        for fig in figures(outcomes):
            print(f"{fig.title}: {fig.measured:.3f} (naive: {fig.reference:.3f}, target {fig.target})")
        print(language_table(outcomes))
        if args.misses:
            _print_misses(questions, outcomes)
        report[name] = {"by_language": by_language(outcomes),
                        "outcomes": [asdict(o) for o in outcomes]}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


def _print_misses(questions: list[dict], outcomes: list[Outcome]) -> None:
    by_id = {q["id"]: q for q in questions}
    for o in outcomes:
        if not o.span:
            q = by_id[o.id]
            want = ", ".join(f"{e['path']}:{e['start']}-{e['end']}" for e in q["evidence"])
            found = "file ok" if o.file else "FILE MISS"
            print(f"\n{o.id} {found}: {q['question']}\n  want {want}")
            print("  got  " + "\n       ".join(o.top))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
