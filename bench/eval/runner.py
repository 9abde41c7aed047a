"""Run questions through `ask` and score each one; rows are plain dicts ready for JSON."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.eval.ask import Asked, ask_chat
from bench.eval.codebases import ensure_codebase, load_codebases
from bench.eval.questions import Question
from bench.eval.scoring import FileIndex, citation_valid, invented_paths, is_correct, is_grounded


def score(question: Question, asked: Asked, root: Path, files: FileIndex,
          language: str = "", turn: int = 1) -> dict[str, Any]:
    model_citations = () if asked.evidence_added else asked.citations
    return {
        "id": question.id, "codebase": question.codebase, "kind": question.kind.value,
        "difficulty": question.difficulty.value, "language": language,
        "turn": turn,  # 2: a follow-up asked in the first question's chat
        "correct": is_correct(asked.text, question.keywords),
        "grounded": is_grounded(asked.citations, question.evidence),
        "grounded_by_model": is_grounded(model_citations, question.evidence),
        "citations": [str(c) for c in asked.citations],
        "citations_valid": all(citation_valid(c, root) for c in asked.citations),
        "evidence_added": asked.evidence_added,
        "invented_paths": invented_paths(asked.text, files),
        # presented as fact: invented and not flagged by the harness as missing from the workspace
        "invented_unflagged": [p for p in invented_paths(asked.text, files)
                               if not any(p.endswith(u) or u.endswith(p) for u in asked.unverified)],
        "support": asked.support,
        "model_tool_calls": asked.model_tool_calls, "stop_reason": asked.stop_reason,
        "tool_calls": [list(call) for call in asked.tool_calls],
        "seconds": round(asked.seconds, 2), "prompt_tokens": asked.prompt_tokens,
        "cached_tokens": asked.cached_tokens, "completion_tokens": asked.completion_tokens,
        "answer": asked.text,
        "token_logprobs": [[text, lp] for text, lp in asked.token_logprobs],
        **({"samples": list(asked.samples), "sample_seconds": asked.sample_seconds} if asked.samples else {}),
        **({"first_answer": asked.first_text, "first_correct": is_correct(asked.first_text, question.keywords),
            "first_support": asked.first_support, "first_seconds": asked.first_seconds}
           if asked.first_text is not None else {}),
    }


def run_questions(questions: Iterable[Question], model: Any, settings: Any,
                  on_row: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Each question, and its follow-up (if any) in the same chat right after it; a follow-up's
    row has turn 2 and the id with "+"."""
    rows: list[dict[str, Any]] = []
    roots: dict[str, tuple[Path, FileIndex]] = {}
    languages = {name: c.language for name, c in load_codebases().items()}
    for question in questions:
        if question.codebase not in roots:
            root = ensure_codebase(question.codebase)
            roots[question.codebase] = (root, FileIndex.of(root))
        root, files = roots[question.codebase]
        follow = question.follow_up_question()
        chat = (question, follow) if follow is not None else (question,)
        answers = ask_chat(tuple(q.question for q in chat), root, model, settings)
        for turn, (asked_q, asked) in enumerate(zip(chat, answers, strict=True), start=1):
            rows.append(score(asked_q, asked, root, files, languages.get(question.codebase, ""), turn))
            if on_row:
                on_row(rows[-1])
    return rows


def print_row(row: dict[str, Any]) -> None:
    marks = "".join(("C" if row["correct"] else "-", "G" if row["grounded"] else "-",
                     "V" if row["citations_valid"] else "-"))
    invented = f" invented={row['invented_paths']}" if row["invented_paths"] else ""
    print(f"[eval] {row['id']:12} {marks} {row['seconds']:6.1f}s calls={row['model_tool_calls']}"
          f"{invented} :: {row['answer'][:100]!r}", file=sys.stderr, flush=True)
