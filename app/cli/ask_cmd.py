"""`python -m app ask`: answer one question about a workspace, streamed to stdout.

    python -m app ask --workspace DIR [--model PATH] [--json] [--trace FILE] [--max-steps N]
                      [--continue last|RUN_ID] QUESTION
    python -m app ask --workspace DIR --server URL [--server-model NAME] ... QUESTION

Tool activity and stop notes go to stderr so stdout holds only the answer (or, with --json, one
JSON object). Exit codes: 0 a run finished, 1 the model failed mid-run, 2 bad arguments or
workspace, 3 the model could not be loaded, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from app.errors import BurrowError, ModelLoadError

EXIT_MODEL_FAILED, EXIT_USAGE, EXIT_MODEL_LOAD, EXIT_INTERRUPTED = 1, 2, 3, 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", required=True, metavar="DIR", help="the project folder to ask about")
    parser.add_argument("--model", metavar="PATH", help="a GGUF file (default: the model chosen in the "
                        "app's Settings, else the built-in default model)")
    parser.add_argument("--server", metavar="URL", help="an OpenAI-compatible inference server "
                        "(Ollama, LM Studio, llama-server), e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--server-model", metavar="NAME", help="the server's model (default: its first)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end instead of streaming")
    parser.add_argument("--trace", metavar="FILE", help="write every event as JSON Lines (prompts included)")
    parser.add_argument("--max-steps", type=int, metavar="N", help="step budget: model turns for this question")
    parser.add_argument("--continue", dest="continue_chat", metavar="last|RUN_ID",
                        help="continue a recorded chat of this workspace: its earlier questions and answers "
                        "are in the prompt")
    parser.add_argument("question", nargs="+", help="the question (quote it, or let the words run on)")


def run(args: argparse.Namespace) -> int:
    from app.harness.session import Session, open_toolbox
    from app.paths import app_paths
    from app.settings import load_settings, update_settings
    from app.tools.code_search import CodeSearch

    question = " ".join(args.question).strip()
    try:
        if not question:
            raise BurrowError("the question is empty")
        paths = app_paths()
        settings = load_settings(paths.settings_file)
        if args.max_steps is not None:
            settings = update_settings(settings, max_steps=args.max_steps)
        code_search = CodeSearch()
        tools = open_toolbox(args.workspace, settings, code_search=code_search)
    except BurrowError as exc:
        return _fail(f"ask: {exc}", EXIT_USAGE)
    try:
        model = _load_model(args, settings)
    except (BurrowError, OSError, ValueError, ImportError) as exc:
        tools.workspace.close()
        return _fail(f"ask: could not load the model: {exc}", EXIT_MODEL_LOAD)
    with Session(tools, model, settings, paths, code_search) as session:
        try:
            chat = session.load_chat(args.continue_chat) if args.continue_chat else None
        except BurrowError as exc:
            return _fail(f"ask: {exc}", EXIT_USAGE)
        return _ask(question, args, session, chat)


def _load_model(args: argparse.Namespace, settings: Any) -> Any:
    from app.llm.llama_backend import load_model
    from app.llm.server_backend import chosen_server, connect_server

    path = args.model
    server = chosen_server(settings, args.server, args.server_model) if not path else None
    if server is not None:
        return connect_server(server.base_url, server.model or None, settings)
    chosen = Path(path).expanduser() if path else _saved_or_default(settings.model_path)
    if not chosen.exists():
        raise ModelLoadError(f"the model file {chosen} does not exist")
    if not chosen.is_file():
        raise ModelLoadError(f"{chosen} is a folder, not a GGUF model file")
    return load_model(chosen, settings)


def _saved_or_default(saved: str | None) -> Path:
    """Precedence: --model, then the model saved in settings, then the default model. A saved model
    that has gone missing falls back to the default, with a note."""
    from app.llm.catalog import default_model_path

    if saved and Path(saved).is_file():
        return Path(saved)
    if saved:
        _note(f"ask: the model chosen in Settings ({saved}) is missing; using the default model")
    return Path(default_model_path())


def _ask(question: str, args: argparse.Namespace, session: Any, chat: Any) -> int:
    from app.harness.events import RunStopped, StopReason
    from app.harness.prompts import stop_message
    from app.harness.session import QuestionRefusedError

    report = _JsonReport()
    with ExitStack() as stack:
        trace = stack.enter_context(open(args.trace, "w", encoding="utf-8")) if args.trace else None
        printer = _Printer(args.json, trace)
        try:
            for event in session.ask(question, chat=chat):
                report.add(event)
                printer.show(event)
        except KeyboardInterrupt:  # the loop recorded the run as cancelled; say so here too
            stopped = RunStopped(StopReason.CANCELLED, stop_message(StopReason.CANCELLED))
            report.add(stopped)
            printer.show(stopped)
        except QuestionRefusedError as exc:  # too long, or nothing to answer from: the model never ran
            return _fail(f"ask: {exc}", EXIT_USAGE)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    return _exit_code(report.stopped_reason)


def _exit_code(reason: str) -> int:
    from app.harness.events import StopReason

    codes = {StopReason.MODEL_ERROR: EXIT_MODEL_FAILED, StopReason.CANCELLED: EXIT_INTERRUPTED}
    return codes.get(StopReason(reason), 0) if reason else EXIT_INTERRUPTED


class _Printer:
    """Streams the answer to stdout (unless --json), notes to stderr, every event to --trace."""

    def __init__(self, as_json: bool, trace: TextIO | None) -> None:
        self.as_json, self.trace, self.streamed = as_json, trace, False

    def show(self, event: Any) -> None:
        from app.harness import events as ev
        from app.harness.records import event_to_dict

        if self.trace is not None:
            _write_trace(self.trace, event_to_dict(event))
        if isinstance(event, ev.ModelTextStreamed) and not self.as_json:
            self.streamed = _echo(event.text) or self.streamed
        elif isinstance(event, ev.ToolCallCompleted):
            _note(f"[{event.name} {json.dumps(event.arguments)} -> {'ok' if event.ok else 'error'}]")
        elif isinstance(event, ev.AnswerCompleted) and not self.as_json:
            _finish_stream(event, self.streamed)
        elif isinstance(event, ev.RunStopped) and event.message and event.reason != "answered":
            _note(event.message)
        elif isinstance(event, ev.IndexProgress):
            from app.index.values import describe_wait

            _note(f"[{describe_wait(event.done, event.total)}]" if event.waiting else
                  f"[indexing the workspace: {event.done}/{event.total} files]")
        elif isinstance(event, ev.IndexReady) and (event.changed or event.removed):
            _note(f"[index: {event.files} files, {event.chunks} chunks; {event.changed} read, "
                  f"{event.removed} removed in {event.seconds:.1f} s]")


def _echo(text: str) -> bool:
    sys.stdout.write(text)
    sys.stdout.flush()
    return bool(text.strip())


def _finish_stream(answer: Any, streamed: bool) -> None:
    """Streamed text was checked as it came; add what only the end knows (sources, or all of it),
    then the verdict in words and what backs it."""
    from app.harness.prompts import SUPPORT_LABELS, verdict_detail

    if not streamed:
        sys.stdout.write(answer.text)
    elif answer.notes:
        sys.stdout.write("\n\n" + answer.notes)
    detail = verdict_detail(answer)
    sys.stdout.write("\n\n" + "\n".join([SUPPORT_LABELS[answer.support], *detail]) + "\n")
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
    """Gathers what --json prints: answer, citations, support with its backing and closest lines
    and the claims found and missing, unverified, tool_calls, steps, stopped_reason, usage."""

    def __init__(self) -> None:
        self.answer = ""
        self.citations: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.steps = 0
        self.stopped_reason = ""
        self.usage: dict[str, Any] = {}
        self.support = "not_backed"  # no answer, nothing backs it
        self.unverified: list[str] = []
        self.verdict: dict[str, Any] = {"backing": [], "closest": [], "found": [], "missing": [], "doubt": None,
                                        "left_out": []}

    def add(self, event: Any) -> None:
        from app.harness import events as ev
        from app.harness.records import event_to_dict

        if isinstance(event, ev.ModelTextStreamed):  # kept as the answer if the run is cut short
            self.answer += event.text
        elif isinstance(event, ev.ToolCallCompleted):  # step 0: the harness's own opening reads
            self.tool_calls.append({"name": event.name, "arguments": event.arguments, "ok": event.ok})
        elif isinstance(event, ev.ToolCallRefused):
            self.tool_calls.append({"name": event.name, "arguments": _parsed(event.raw_arguments), "ok": False})
        elif isinstance(event, ev.AnswerCompleted):
            self.answer = event.answer  # the model's words only: the verdict and sources are fields
            self.citations = event_to_dict(event)["citations"]
            self.support, self.unverified = event.support.value, list(event.unverified)
            self.verdict = {"backing": [_line(b) for b in event.backing],
                            "closest": [_line(c) for c in event.closest],
                            "found": list(event.found), "missing": list(event.missing),
                            "left_out": [_line(c) for c in event.left_out],
                            "doubt": None if event.doubt is None else
                            {"claim": event.doubt.claim, "probability": round(math.exp(event.doubt.logprob), 3)}}
        elif isinstance(event, ev.RunStopped):
            self.steps, self.stopped_reason = event.steps, event.reason.value
            self.usage = event_to_dict(event)["usage"]

    def as_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "citations": self.citations, "support": self.support,
                **self.verdict, "unverified": self.unverified, "tool_calls": self.tool_calls,
                "steps": self.steps, "stopped_reason": self.stopped_reason, "usage": self.usage}


def _line(shown: Any) -> dict[str, Any]:
    return {"path": shown.span.path, "line": shown.span.start_line, "text": shown.text}


def _parsed(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw
