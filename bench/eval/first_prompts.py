"""`python -m bench.eval.first_prompts`: every eval question's first prompt, with no model run.

    python -m bench.eval.first_prompts --set tuning [--set tuning2 ...] --json OUT [--compare OLD]

Each question is asked through the real harness (the real index, the default model's tokenizer
for the chunk budget) with a scripted model, and the messages of its first model request are
written to OUT as {id: messages}. With `--compare OLD` (a file written the same way by other
code), the questions whose first prompt differs are listed: greedy answers repeat on one machine,
so only those need asking again to measure a retrieval or prompt change (docs/eval.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.eval import scratch_home

ROOT = Path(__file__).resolve().parents[2]


def first_prompt(question: Any, tokenizer: Any, settings: Any) -> list[dict[str, Any]]:
    """The messages of the first request the harness makes for `question`."""
    from app.harness.session import Session
    from bench.eval.codebases import ensure_codebase
    from bench.eval.replay import _ReplayModel

    model = _ReplayModel(["-"], tokenizer, [None])
    with Session.open(ensure_codebase(question.codebase), model, settings) as session:
        for _ in session.ask(question.question):
            pass
    return [dict(m) for m in model._scripted.requests[0].messages]


def changed(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """Ids present in both whose first prompts differ, in `new`'s order."""
    return [qid for qid, messages in new.items() if qid in old and old[qid] != messages]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.eval.first_prompts", description=__doc__.splitlines()[0])
    p.add_argument("--set", dest="sets", action="append", required=True,
                   help="a question set: tuning, tuning2, tuning3 or heldout (repeatable)")
    p.add_argument("--json", type=Path, required=True, help="write {id: messages} here")
    p.add_argument("--compare", type=Path, help="an earlier --json file: list the ids whose prompt changed")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    sys.path.insert(0, str(ROOT))
    scratch_home("burrow-prompts-home-")
    from app.llm.catalog import default_model_path
    from app.llm.llama_backend import load_model
    from app.settings import Settings
    from bench.eval.questions import load_set

    settings = Settings(tool_policy="retrieval")
    tokenizer = load_model(default_model_path(), Settings(n_ctx=512, n_threads=1))
    prompts = {q.id: first_prompt(q, tokenizer, settings) for s in args.sets for q in load_set(s)}
    args.json.write_text(json.dumps(prompts), encoding="utf-8")
    print(f"{len(prompts)} first prompts -> {args.json}")
    if args.compare:
        ids = changed(prompts, json.loads(args.compare.read_text(encoding="utf-8")))
        print(f"{len(ids)} changed: {','.join(ids)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
