"""`python -m app ask`: answer one question about a workspace, streamed to stdout.

    python -m app ask --workspace DIR [--model PATH] [--json] [--trace FILE] [--max-steps N] QUESTION

Tool activity and stop notes go to stderr so stdout holds only the answer (or, with --json, one
JSON object). Exit codes: 0 a run finished, 1 the model failed mid-run, 2 bad arguments or
workspace, 3 the model could not be loaded, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from app.errors import BurrowError, ModelLoadError

EXIT_MODEL_FAILED, EXIT_USAGE, EXIT_MODEL_LOAD, EXIT_INTERRUPTED = 1, 2, 3, 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", required=True, metavar="DIR", help="the project folder to ask about")
    parser.add_argument("--model", metavar="PATH", help="a GGUF file (default: the embedded default model)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end instead of streaming")
    parser.add_argument("--trace", metavar="FILE", help="write every event as JSON Lines (prompts included)")
    parser.add_argument("--max-steps", type=int, metavar="N", help="step budget: model turns for this question")
    parser.add_argument("question", nargs="+", help="the question (quote it, or let the words run on)")


def run(args: argparse.Namespace) -> int:
    from app.paths import app_paths
    from app.settings import load_settings, update_settings

    question = " ".join(args.question).strip()
    try:
        if not question:
            raise BurrowError("the question is empty")
        paths = app_paths()
        settings = load_settings(paths.settings_file)
        if args.max_steps is not None:
            settings = update_settings(settings, max_steps=args.max_steps)
        workspace, executor = _open_workspace(args.workspace, settings)
    except BurrowError as exc:
        return _fail(f"ask: {exc}", EXIT_USAGE)
    try:
        model = _load_model(args.model, settings)
    except (BurrowError, OSError, ValueError, ImportError) as exc:
        return _fail(f"ask: could not load the model: {exc}", EXIT_MODEL_LOAD)
    return _ask(question, args, workspace, executor, model, settings, paths)


def _open_workspace(folder: str, settings: Any) -> tuple[Any, Any]:
    from app.errors import WorkspaceError
    from app.harness.calls import ToolExecutor
    from app.workspace import Workspace

    root = Path(folder).expanduser()
    if not root.exists():
        raise WorkspaceError(f"workspace folder {folder} does not exist")
    if not root.is_dir():
        raise WorkspaceError(f"workspace {folder} is not a folder")
    workspace = Workspace(root, settings)
    return workspace, ToolExecutor(workspace, settings)


def _load_model(path: str | None, settings: Any) -> Any:
    from app.llm.catalog import default_model_path
    from app.llm.llama_backend import load_model

    chosen = Path(path).expanduser() if path else Path(settings.model_path or default_model_path())
    if not chosen.is_file():
        raise ModelLoadError(f"{chosen} is not a file")
    return load_model(chosen, settings)


def _ask(question: str, args: argparse.Namespace, workspace: Any, executor: Any, model: Any,
         settings: Any, paths: Any) -> int:
    from app.harness.events import AnswerCompleted, ModelTextStreamed, RunStopped, ToolCallCompleted
    from app.harness.loop import run_question
    from app.harness.records import RunRecorder, event_to_dict

    report = _JsonReport()
    streamed = False
    with ExitStack() as stack:
        trace = stack.enter_context(open(args.trace, "w", encoding="utf-8")) if args.trace else None
        for event in run_question(question, workspace=workspace, model=model, executor=executor,
                                  settings=settings, recorder=RunRecorder(paths)):
            if trace is not None:
                _write_trace(trace, event_to_dict(event))
            report.add(event)
            if isinstance(event, ModelTextStreamed) and not args.json:
                streamed = _echo(event.text) or streamed
            elif isinstance(event, ToolCallCompleted):
                _note(f"[{event.name} {json.dumps(event.arguments)} -> {'ok' if event.ok else 'error'}]")
            elif isinstance(event, AnswerCompleted) and not args.json:
                _finish_stream(event, streamed)
            elif isinstance(event, RunStopped) and event.message:
                _note(event.message)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    reason = report.stopped_reason
    return EXIT_MODEL_FAILED if reason == "model_error" else EXIT_INTERRUPTED if reason == "cancelled" else 0


def _echo(text: str) -> bool:
    sys.stdout.write(text)
    sys.stdout.flush()
    return bool(text.strip())


def _finish_stream(answer: Any, streamed: bool) -> None:
    """Streamed text was checked as it came; add what only the end knows (sources, or all of it)."""
    if not streamed:
        sys.stdout.write(answer.text)
    elif answer.evidence_added:
        sys.stdout.write("\n\n" + answer.text.rsplit("\n\n", 1)[-1])
    sys.stdout.write("\n")
    sys.stdout.flush()


def _write_trace(trace: TextIO, data: dict[str, Any]) -> None:
    trace.write(json.dumps(data, ensure_ascii=False) + "\n")
    trace.flush()


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _fail(message: str, code: int) -> int:
    print(message, file=sys.stderr)
    return code


class _JsonReport:
    """Gathers what --json prints: answer, citations, tool_calls, steps, stopped_reason, usage."""

    def __init__(self) -> None:
        self.answer = ""
        self.citations: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.steps = 0
        self.stopped_reason = ""
        self.usage: dict[str, Any] = {}

    def add(self, event: Any) -> None:
        from app.harness import events as ev
        from app.harness.records import event_to_dict

        if isinstance(event, ev.ToolCallCompleted):  # step 0: the harness's own opening reads
            self.tool_calls.append({"name": event.name, "arguments": event.arguments, "ok": event.ok})
        elif isinstance(event, ev.ToolCallRefused):
            self.tool_calls.append({"name": event.name, "arguments": _parsed(event.raw_arguments), "ok": False})
        elif isinstance(event, ev.AnswerCompleted):
            self.answer = event.text
            self.citations = event_to_dict(event)["citations"]
        elif isinstance(event, ev.RunStopped):
            self.steps, self.stopped_reason = event.steps, event.reason
            self.usage = event_to_dict(event)["usage"]

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "citations": self.citations, "tool_calls": self.tool_calls,
                "steps": self.steps, "stopped_reason": self.stopped_reason, "usage": self.usage}


def _parsed(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw
