"""Summaries, bench/results.json (the "eval" key, merged) and the markdown table in docs/eval.md."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

TABLE_START = "<!-- eval-table:start -->"
TABLE_END = "<!-- eval-table:end -->"
BREAKDOWN_START = "<!-- eval-breakdown:start -->"
BREAKDOWN_END = "<!-- eval-breakdown:end -->"
BREAKDOWN_COLUMNS = ("group", "questions", "correct", "grounded", "backed / partly / not backed",
                     "median s")
COLUMNS = ("model", "policy", "questions", "correct", "grounded (model-cited)", "valid citations",
           "invented paths (answers)", "invented, unflagged", "backed / partly / not backed",
           "backed: right (coverage)", "not backed: right", "model tool calls", "median s",
           "prompt / completion tok", "peak RSS MB")
VERDICTS = ("backed", "partly_backed", "not_backed")
# rows recorded before the claim checks carry the old words; they are read as the new ones
OLD_VERDICTS = {"supported": "partly_backed", "partial": "partly_backed", "none": "not_backed"}


def verdict_of(row: dict[str, Any]) -> str:
    support = row.get("support", "not_backed")
    return OLD_VERDICTS.get(support, support)


def reliability(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per verdict: answers right and wrong, precision (right among them) and coverage (share of
    all questions) - the table a user needs to know what a verdict is worth."""
    n = len(rows) or 1
    table = {}
    for level in VERDICTS:
        chosen = [r for r in rows if verdict_of(r) == level]
        right = sum(bool(r["correct"]) for r in chosen)
        table[level] = {"right": right, "wrong": len(chosen) - right,
                        "precision": round(right / len(chosen), 3) if chosen else None,
                        "coverage": round(len(chosen) / n, 3)}
    return table


def first_turns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The questions themselves; follow-ups (turn 2) are summarized apart."""
    return [r for r in rows if r.get("turn", 1) == 1]


def group_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The few figures a per-language or per-kind row shows."""
    return {
        "questions": len(rows),
        "correct": sum(r["correct"] for r in rows),
        "grounded": sum(r["grounded"] for r in rows),
        "support": {level: sum(verdict_of(r) == level for r in rows) for level in VERDICTS},
        "median_seconds": round(statistics.median(r["seconds"] for r in rows), 2) if rows else 0,
    }


def grouped(rows: list[dict[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    keys = sorted({r.get(field) or "?" for r in rows})
    return {k: group_summary([r for r in rows if (r.get(field) or "?") == k]) for k in keys}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    follow_ups = [r for r in rows if r.get("turn", 1) != 1]
    rows = first_turns(rows)
    n = len(rows) or 1
    return {
        "questions": len(rows),
        "correct": sum(r["correct"] for r in rows),
        "grounded": sum(r["grounded"] for r in rows),
        "grounded_by_model": sum(r["grounded_by_model"] for r in rows),
        "citations_valid": sum(r["citations_valid"] for r in rows),
        "invented_paths": sum(len(r["invented_paths"]) for r in rows),
        "answers_with_invented_paths": sum(bool(r["invented_paths"]) for r in rows),
        "invented_unflagged": sum(len(r.get("invented_unflagged", r["invented_paths"])) for r in rows),
        "support": {level: sum(verdict_of(r) == level for r in rows) for level in VERDICTS},
        "reliability": reliability(rows),
        "model_tool_calls": sum(r["model_tool_calls"] for r in rows),
        "median_seconds": round(statistics.median(r["seconds"] for r in rows), 2) if rows else 0,
        "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / n),
        "mean_completion_tokens": round(sum(r["completion_tokens"] for r in rows) / n),
        "by_codebase": {cb: sum(r["correct"] for r in rows if r["codebase"] == cb)
                        for cb in sorted({r["codebase"] for r in rows})},
        "by_language": grouped(rows, "language"),
        "by_kind": grouped(rows, "kind"),
        "follow_ups": group_summary(follow_ups),
        **({"second_stage": second_stage(rows), "second_stage_follow_ups": second_stage(follow_ups)}
           if any("first_answer" in r for r in rows + follow_ups) else {}),
    }


def second_stage(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the second stage did, from the rows of a run with it on: where it started (the first
    answer not backed), where the model chose a call, what changed, and what it cost."""
    entered = [r for r in rows if "first_answer" in r]
    acted = [r for r in entered if r["model_tool_calls"] > 0]
    extra = [r["seconds"] - r["first_seconds"] for r in entered]
    return {
        "questions": len(rows),
        "entered": len(entered),
        "chose_a_call": len(acted),
        "acted_right_and_backed": sum(r["correct"] and r["support"] == "backed" for r in acted),
        "wrong_to_right": sum(r["correct"] and not r["first_correct"] for r in entered),
        "right_to_wrong": sum(r["first_correct"] and not r["correct"] for r in entered),
        "answer_replaced": sum(r.get("answer") != r["first_answer"] for r in entered),
        "correct_first_answers": sum(r["first_correct"] if "first_answer" in r else r["correct"] for r in rows),
        "correct": sum(r["correct"] for r in rows),
        "first_answers_support": _first_support(rows),
        "median_extra_seconds": round(statistics.median(extra), 1) if extra else 0,
        "median_seconds_first_answers": round(statistics.median(
            r["first_seconds"] if "first_answer" in r else r["seconds"] for r in rows), 2) if rows else 0,
    }


def _first_support(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The verdicts of the answers before the second stage (what the default, stage off, shows),
    each with how many were right."""
    firsts = [(verdict_of({"support": r["first_support"]}), r["first_correct"]) if "first_answer" in r
              else (verdict_of(r), r["correct"]) for r in rows]
    return {v: {"answers": sum(f == v for f, _ in firsts), "right": sum(f == v and bool(c) for f, c in firsts)}
            for v in VERDICTS}


def breakdown_table(summary: dict[str, Any]) -> str:
    """Per-language and per-kind rows of one run (and its follow-ups, when it had any)."""
    groups = [(f"language: {k}", v) for k, v in summary.get("by_language", {}).items()]
    groups += [(f"kind: {k}", v) for k, v in summary.get("by_kind", {}).items()]
    if summary.get("follow_ups", {}).get("questions"):
        groups.append(("follow-ups (same chat)", summary["follow_ups"]))
    lines = ["| " + " | ".join(BREAKDOWN_COLUMNS) + " |", "|" + "---|" * len(BREAKDOWN_COLUMNS)]
    for name, g in groups:
        n = g["questions"]
        cells = [name, str(n), _pct(g["correct"], n), _pct(g["grounded"], n),
                 " / ".join(str(g["support"][k]) for k in VERDICTS),
                 f"{g['median_seconds']:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_key(model: str, policy: str, scope: str) -> str:
    return f"{model} | {policy} | {scope}"


def merge_results(path: Path, key: str, run: dict[str, Any]) -> dict[str, Any]:
    """Add one run under results["eval"]["runs"][key], keeping every other key of the file."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    section = data.setdefault("eval", {})
    section.setdefault("runs", {})[key] = run
    section["table_markdown"] = markdown_table(section["runs"])
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)
    return section


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def markdown_table(runs: dict[str, dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for run in runs.values():
        s, n = run["summary"], run["summary"]["questions"]
        cells = [run["model"], run["policy"], f"{n} ({run['scope']})", _pct(s["correct"], n),
                 f"{_pct(s['grounded'], n)} ({s['grounded_by_model']})",
                 _pct(s["citations_valid"], n),
                 f"{s['invented_paths']} ({s['answers_with_invented_paths']})",
                 str(s.get("invented_unflagged", "?")),
                 " / ".join(str(s.get("support", {}).get(k, "?")) for k in VERDICTS),
                 *_reliability_cells(s.get("reliability")),
                 str(s["model_tool_calls"]), f"{s['median_seconds']:.1f}",
                 f"{s['mean_prompt_tokens']} / {s['mean_completion_tokens']}",
                 str(run.get("peak_rss_mb", "?"))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _reliability_cells(table: dict[str, Any] | None) -> list[str]:
    if not table:
        return ["?", "?"]
    backed, unbacked = table["backed"], table["not_backed"]
    return [f"{_pct(backed['right'], backed['right'] + backed['wrong'])} ({100 * backed['coverage']:.0f}%)",
            _pct(unbacked["right"], unbacked["right"] + unbacked["wrong"])]


def reliability_markdown(table: dict[str, Any]) -> str:
    """The verdict x right/wrong table, with each verdict's precision and coverage."""
    lines = ["| verdict | right | wrong | precision | coverage |", "|---|---|---|---|---|"]
    for level in VERDICTS:
        cell = table[level]
        precision = "-" if cell["precision"] is None else f"{100 * cell['precision']:.0f}%"
        lines.append(f"| {level} | {cell['right']} | {cell['wrong']} | {precision} | "
                     f"{100 * cell['coverage']:.0f}% |")
    return "\n".join(lines)


def write_table(doc: Path, table: str, start: str = TABLE_START, end: str = TABLE_END) -> None:
    """Replace the table between the markers in doc (appending the markers if they are missing)."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    block = f"{start}\n{table}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = f"{text.rstrip()}\n\n{block}\n" if text else f"{block}\n"
    doc.write_text(text, encoding="utf-8")
