"""`python -m bench.eval.replay`: the support verdict on recorded answers, with no model run.

    python -m bench.eval.replay --rows docs/eval_rows/wave2d_q15.json [--ids a,b] [--json OUT]
                                [--results bench/results.json] [--verbose] [--set KEY=VALUE]

Each recorded row (an eval run's `--json`) is replayed through the real harness: the question's
first prompt is rebuilt by the same search_code call a run makes (the real index, the default
model's tokenizer for the chunk budget), and a scripted model gives back the recorded answer. The
harness then checks that answer as it would have, so a verdict rule can be measured against the
rows' `correct` in seconds instead of hours of model time. The replay is only as faithful as the
first prompt is unchanged since the rows were recorded (retrieval changes move it). Rows of
held-out questions replay too, to report a rule on questions it was not tuned on, never to tune
it; a row with the answer's token log-probabilities (runs since the verdict weighs the model's
certainty, app/harness/certainty.py) replays them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.eval import scratch_home

ROOT = Path(__file__).resolve().parents[2]


class _ReplayModel:
    """The recorded replies, in order (a question's calls and answer, then its follow-up's);
    `answers` are answer texts or, for a turn that called tools, ParsedReply objects; `tokens`
    each answer's log-probabilities (a call turn's: empty). Tokens counted by the real model's
    tokenizer."""

    def __init__(self, answers: list[Any], tokenizer: Any, tokens: list[list[list[Any]] | None]) -> None:
        from app.llm.scripted import ScriptedModel

        logprobs = ([[(str(t), float(lp)) for t, lp in (each or ())] for each in tokens]
                    if any(tokens) else ())
        self._scripted = ScriptedModel(answers, context_length=32768, logprobs=logprobs)
        self._tokenizer = tokenizer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scripted, name)

    def count_tokens(self, text: str) -> int:
        return self._tokenizer.count_tokens(text)


def replay_row(row: dict[str, Any], question: Any, tokenizer: Any, settings: Any,
               first: tuple[dict[str, Any], Any] | None = None) -> dict[str, Any]:
    """The verdict on one recorded answer; a follow-up's (`first`: its chat's first row and
    question) after its first question's recorded answer, in one chat, as the run asked them."""
    from app.harness import events as ev
    from app.harness.session import Session
    from bench.eval.ask import Cited, chat_after
    from bench.eval.codebases import ensure_codebase
    from bench.eval.scoring import is_correct, is_grounded

    root = ensure_codebase(question.codebase)
    chain = [first, (row, question)] if first else [(row, question)]
    replies: list[Any] = []
    tokens: list[Any] = []
    for recorded, _ in chain:
        calls = _recorded_calls(recorded)
        replies += calls + [recorded["answer"]]
        tokens += [[]] * len(calls) + [recorded.get("token_logprobs")]
    model = _ReplayModel(replies, tokenizer, tokens)
    chat = None
    with Session.open(root, model, settings) as session:
        for _, asked in chain:
            events = list(session.ask(asked.question, chat=chat))
            chat = chat_after(chat, events)
    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    # scored again: a scoring fix (a number written "v18") applies to recorded answers too
    out = {"id": row["id"], "kind": row.get("kind", ""),
           "correct": is_correct(row["answer"], question.keywords), "recorded_correct": row["correct"],
           "recorded_support": row.get("support", ""),
           "support": answer.support.value if answer else "none"}
    if answer is not None:
        out.update(_verdict_fields(answer))
        cited = [Cited(c.path, c.start_line, c.end_line) for c in answer.citations]
        out["grounded"] = is_grounded(cited, question.evidence)
        out["recorded_grounded"] = bool(row.get("grounded"))
    return out


def _recorded_calls(row: dict[str, Any]) -> list[Any]:
    """The tool calls the model made before its answer, one reply per step, as the run recorded
    them (rows since the twenty-second session keep them; older rows only count them)."""
    from app.llm.base import ParsedReply, ParsedToolCall

    steps: dict[int, list[Any]] = {}
    for step, name, raw in row.get("tool_calls") or ():
        try:
            arguments = json.loads(raw)
        except ValueError:
            arguments = {}
        steps.setdefault(step, []).append(ParsedToolCall(name, arguments if isinstance(arguments, dict) else {}, raw))
    return [ParsedReply("", tuple(calls)) for _, calls in sorted(steps.items())]


def _faithful(row: dict[str, Any]) -> bool:
    """The row's calls can be made again: none, or all recorded with their arguments."""
    return len(row.get("tool_calls") or ()) == (row.get("model_tool_calls") or 0)


def _replayable_follow_up(row: dict[str, Any], firsts: dict[str, dict[str, Any]]) -> bool:
    """A follow-up replays faithfully when its first question's row is there and every call the
    model made in either was recorded with its arguments (older rows kept a count only, and a
    follow-up judged without its reads finds nothing: 10 of the tuning sets' 14 follow-ups called)."""
    first = firsts.get(row["id"][:-1])
    return first is not None and _faithful(row) and _faithful(first)


def _verdict_fields(answer: Any) -> dict[str, Any]:
    return {"citations": [str(c) for c in answer.citations],
            "backing": [f"{b.span}: {b.text.strip()}" for b in answer.backing],
            "closest": [f"{c.span}: {c.text.strip()}" for c in answer.closest],
            "found": list(answer.found), "missing": list(answer.missing),
            "unverified": list(answer.unverified),
            "doubt": None if answer.doubt is None else {"claim": answer.doubt.claim,
                                                        "percent": answer.doubt.percent}}


def recorded_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Verdict x right/wrong as the rows recorded it (the words of the rule they were run with)."""
    table: dict[str, dict[str, int]] = {}
    for row in rows:
        cell = table.setdefault(row["recorded_support"] or "none", {"right": 0, "wrong": 0})
        cell["right" if row["correct"] else "wrong"] += 1
    return table


def print_summary(rows: list[dict[str, Any]]) -> None:
    from bench.eval.report import reliability

    grounded = sum(bool(r.get("grounded")) for r in rows)
    print(f"grounded {grounded}/{len(rows)} (recorded {sum(bool(r.get('recorded_grounded')) for r in rows)})")

    for level, cell in reliability(rows).items():
        count = cell["right"] + cell["wrong"]
        precision = "-" if cell["precision"] is None else f"{100 * cell['precision']:5.1f}%"
        print(f"{level:14} {count:3} answers  coverage {100 * cell['coverage']:5.1f}%  "
              f"right {cell['right']:3} ({precision})")


def merge_results(path: Path, name: str, rows: list[dict[str, Any]]) -> None:
    """results["verdict_replay"][name]: the recorded and the replayed verdict x right/wrong."""
    from bench.eval.report import reliability

    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data.setdefault("verdict_replay", {})[name] = {
        "questions": len(rows), "right": sum(bool(r["correct"]) for r in rows),
        "recorded": recorded_table(rows), "replayed": reliability(rows),
        "command": f"python -m bench.eval.replay --rows docs/eval_rows/{name}.json"}
    tmp = path.with_suffix(".json.tmp")
    text = json.dumps(data, indent=2, default=str)  # as python -m bench and the eval write the file
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.eval.replay", description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=Path, required=True, help="an eval run's --json rows")
    p.add_argument("--ids", default="", help="only these question ids (comma-separated)")
    p.add_argument("--json", type=Path, help="write the replayed rows here")
    p.add_argument("--verbose", action="store_true", help="one line per question")
    p.add_argument("--follow-ups", action="store_true",
                   help="replay follow-ups too, each after its first question's recorded answer in one chat, "
                   "the model's recorded calls made again (rows that kept only their count are skipped)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting the rows were recorded with (e.g. intro_index_tokens=900)")
    p.add_argument("--results", type=Path, help="merge the tables into this results file "
                   "(bench/results.json) under verdict_replay")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(ROOT))
    scratch_home("burrow-replay-home-")
    from app.llm.catalog import default_model_path
    from app.llm.llama_backend import load_model
    from app.settings import Settings
    from bench.eval.questions import EvalSet, load_set

    settings = Settings(tool_policy="retrieval", **dict(o.split("=", 1) for o in args.overrides))
    tokenizer = load_model(default_model_path(), Settings(n_ctx=512, n_threads=1))
    questions = {q.id: q for s in EvalSet for q in load_set(s)}
    questions |= {f.id: f for q in list(questions.values()) if (f := q.follow_up_question())}
    wanted = set(args.ids.split(",")) if args.ids else None
    recorded = json.loads(args.rows.read_text(encoding="utf-8"))
    firsts = {r["id"]: r for r in recorded if r.get("turn", 1) == 1}
    rows = [r for r in recorded if r["id"] in questions and (wanted is None or r["id"] in wanted)
            and (r.get("turn", 1) == 1 or (args.follow_ups and _replayable_follow_up(r, firsts)))]
    out = []
    for row in rows:
        base = row["id"][:-1]
        first = (firsts[base], questions[base]) if row.get("turn", 1) != 1 else None
        out.append(replay_row(row, questions[row["id"]], tokenizer, settings, first))
        if args.verbose:
            r = out[-1]
            print(f"{r['id']:16} {'R' if r['correct'] else '-'} {r['recorded_support']:9} -> "
                  f"{r['support']:13} {(r.get('backing') or [''])[0][:90]}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print_summary(out)
    if args.results:
        merge_results(args.results, args.rows.stem, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
