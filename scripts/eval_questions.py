"""Ask 10 questions about the fixture project through the real default model and measure.

    .venv/bin/python scripts/eval_questions.py [--model PATH] [--json OUT]

For each question: seconds, steps, stop reason, tool calls, whether a tool result (from a call the
model made) appeared in a later prompt, the citations kept (re-checked here against the trace and
the file), and a keyword check of the answer. The keyword check is a first pass only: read the
answers (printed in full) before calling one right.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "fixtures" / "sample_project"

# (question, any of these words in the answer counts as a keyword match)
QUESTIONS = [
    ("What does notekeeper do?", ["note"]),
    ("What is the default maximum note length?", ["500"]),
    ("Which file parses the configuration?", ["config.py"]),
    ("What license does the project use?", ["MIT"]),
    ("What version of notekeeper is this?", ["0.3.1"]),
    ("Which commands does the notekeeper CLI support?", ["add", "search", "delete"]),
    ("In which file are the notes stored?", ["notes.json"]),
    ("What is the default editor?", ["nano"]),
    ("How do I install notekeeper?", ["pip install"]),
    ("Which Python version does notekeeper require?", ["3.9"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="GGUF file (default: the default model)")
    parser.add_argument("--json", help="write every run's measurements here")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a setting for this evaluation (A/B a harness choice)")
    args = parser.parse_args()
    os.environ.setdefault("BURROW_HOME", tempfile.mkdtemp(prefix="burrow-eval-"))
    from app.harness.session import Session
    from app.llm.catalog import default_model_path
    from app.llm.llama_backend import load_model
    from app.netguard import install_network_guard
    from app.settings import Settings

    guard = install_network_guard()
    settings = Settings.model_validate(dict(item.split("=", 1) for item in args.set))
    print(f"settings changed: {args.set or 'none'}")
    started = time.perf_counter()
    model = load_model(args.model or default_model_path(), settings)
    print(f"model {model.name} loaded in {time.perf_counter() - started:.2f}s, dialect {model.dialect_name}")
    project = Path(tempfile.mkdtemp(prefix="burrow-eval-ws-")) / "notekeeper"
    shutil.copytree(FIXTURE, project)
    rows = []
    with Session.open(project, model, settings) as session:
        for question, keywords in QUESTIONS:
            rows.append(measure(question, keywords, session, project))
            print_row(rows[-1])
    summarize(rows, len(guard.attempts))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


def measure(question, keywords, session, project: Path) -> dict:
    from app.harness import events as ev

    reset = getattr(session.model, "reset", None)
    if callable(reset):
        reset()  # each question starts cold, as a fresh `ask` would
    started = time.perf_counter()
    events = list(session.ask(question))
    seconds = time.perf_counter() - started
    answer = next((e for e in events if isinstance(e, ev.AnswerCompleted)), None)
    results = [e for e in events if isinstance(e, ev.ToolCallCompleted)]
    prompts = [e for e in events if isinstance(e, ev.PromptRendered)]
    citations = list(answer.citations) if answer else []
    text = answer.text if answer else ""
    return {
        "question": question, "seconds": round(seconds, 2), "steps": events[-1].steps,
        "stopped_reason": events[-1].reason.value, "answer": text,
        "calls": [f"{e.name}({json.dumps(e.arguments)}) {'ok' if e.ok else 'error'}" for e in results if e.step > 0]
        + [f"refused {e.name} {e.raw_arguments}" for e in events if isinstance(e, ev.ToolCallRefused)],
        "result_seen": any(_seen_later(r, prompts) for r in results if r.step > 0 and r.ok),
        "citations": [str(c) for c in citations],
        "citations_valid": bool(citations) and all(_valid(c, results, project) for c in citations),
        "evidence_added": bool(answer and answer.evidence_added),
        "keyword_match": any(k.lower() in text.split("Sources:")[0].lower() for k in keywords),
    }


def _seen_later(result, prompts) -> bool:
    head = "\n".join(result.content.splitlines()[:3])
    return any(p.step > result.step and head in p.text for p in prompts)


def _valid(citation, results, project: Path) -> bool:
    spans = [s for r in results if r.ok for s in r.spans]
    shown = all(any(s.path == citation.path and s.start_line <= line <= s.end_line for s in spans)
                for line in range(citation.start_line, citation.end_line + 1))
    lines = (project / citation.path).read_text(encoding="utf-8").splitlines()
    return shown and 1 <= citation.start_line <= citation.end_line <= len(lines)


def print_row(row: dict) -> None:
    print(f"\n## {row['question']}  ({row['seconds']}s, {row['steps']} steps, {row['stopped_reason']})")
    print(f"calls: {row['calls']}")
    print(f"result seen later: {row['result_seen']}; citations {row['citations']} valid={row['citations_valid']} "
          f"(evidence added: {row['evidence_added']}); keyword match: {row['keyword_match']}")
    print(f"answer: {row['answer']!r}")


def summarize(rows: list[dict], network_attempts: int) -> None:
    n = len(rows)
    print("\n# summary")
    print(f"answers with a valid citation: {sum(r['citations_valid'] for r in rows)}/{n} "
          f"(of which model-written: {sum(r['citations_valid'] and not r['evidence_added'] for r in rows)})")
    print(f"runs where a tool result reached a later prompt: {sum(r['result_seen'] for r in rows)}/{n}")
    print(f"keyword matches (check by reading): {sum(r['keyword_match'] for r in rows)}/{n}")
    print(f"median seconds: {statistics.median(r['seconds'] for r in rows):.2f}; "
          f"network attempts: {network_attempts}")


if __name__ == "__main__":
    raise SystemExit(main())
