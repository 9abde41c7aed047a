"""`python -m app tool`: run tool calls against a workspace exactly as the model's calls are run.

    python -m app tool --workspace DIR NAME [JSON_ARGS]
    python -m app tool --workspace DIR --batch FILE|-

Batch lines are {"id", "name", "arguments"} with `arguments` the model's raw string; each gives one
output line {"id", "ok", "content"}, in order. Exit 0 when every call succeeded, 1 when a call failed
(bad JSON or arguments, a path the workspace refuses, an unknown tool, a tool error: the output says
why, as the model would read it), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.harness.calls import ToolExecutor

CALL_FAILED, USAGE_ERROR = 1, 2


class BatchLineError(ValueError):
    """A batch line is not {"id": str, "name": str, "arguments": str}."""


@dataclass(frozen=True)
class BatchCall:
    id: str
    name: str
    arguments: str


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", required=True, metavar="DIR", help="the folder the tools may read")
    parser.add_argument("--batch", metavar="FILE", help="JSON Lines of calls, or '-' for standard input")
    parser.add_argument("name", nargs="?", metavar="NAME", help="tool name, e.g. read_file")
    parser.add_argument("json_args", nargs="?", metavar="JSON_ARGS", default="",
                        help='arguments as the model would send them, e.g. \'{"path": "README.md"}\'')
    parser.add_argument("--list", action="store_true", help="print the tools' JSON schemas and exit")


def run(args: argparse.Namespace) -> int:
    problem = _arg_problem(args)
    if problem:
        return _usage(problem)
    try:
        calls = _read_batch(args.batch) if args.batch is not None else []
    except (OSError, BatchLineError) as exc:
        return _usage(str(exc))
    executor = _executor(args.workspace)
    if executor is None:
        return USAGE_ERROR
    return 0 if _serve(executor, args, calls) else CALL_FAILED


def _arg_problem(args: argparse.Namespace) -> str | None:
    if args.batch is not None and args.name is not None:
        return "give either NAME [JSON_ARGS] or --batch FILE, not both"
    if args.batch is None and args.name is None and not args.list:
        return "give a tool NAME (with optional JSON_ARGS) or --batch FILE|-"
    return None


def _serve(executor: ToolExecutor, args: argparse.Namespace, calls: list[BatchCall]) -> bool:
    """List the tools, run the one call named, or run the batch's calls; False when a call failed."""
    if args.list:
        print(json.dumps(executor.schemas(), indent=2))
        return True
    if args.batch is None:
        outcome = executor.run("cli", args.name, args.json_args)
        print(outcome.content)
        if not outcome.ok:
            print("(the call failed: ok=false)", file=sys.stderr)
        return outcome.ok
    return _run_batch(executor, calls)


def _run_batch(executor: ToolExecutor, calls: list[BatchCall]) -> bool:
    """One JSON line per call, written as each call finishes; False when any call failed."""
    all_ok = True
    for call in calls:
        outcome = executor.run(call.id, call.name, call.arguments)
        all_ok = all_ok and outcome.ok
        line = {"id": call.id, "ok": outcome.ok, "content": outcome.content}
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return all_ok


def _executor(workspace: str):
    from app.errors import WorkspaceError
    from app.harness.session import open_toolbox
    from app.paths import app_paths
    from app.settings import load_settings

    settings = load_settings(app_paths().settings_file)
    try:
        return open_toolbox(workspace, settings)
    except WorkspaceError as exc:
        _usage(str(exc))
        return None


def _read_batch(source: str) -> list[BatchCall]:
    if source == "-":
        text = sys.stdin.read()
    else:
        text = Path(source).read_text(encoding="utf-8")
    return [parse_batch_line(line, n) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def parse_batch_line(line: str, number: int) -> BatchCall:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BatchLineError(f"batch line {number} is not JSON: {exc.msg}") from None
    if not isinstance(obj, dict):
        raise BatchLineError(f"batch line {number} must be a JSON object")
    call_id, name, arguments = obj.get("id"), obj.get("name"), obj.get("arguments", "")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise BatchLineError(f'batch line {number} needs string fields "id" and "name"')
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)  # tolerated: an already-parsed object means the same call
    if not isinstance(arguments, str):
        raise BatchLineError(f'batch line {number}: "arguments" must be the raw string the model produced')
    return BatchCall(call_id, name, arguments)


def _usage(message: str) -> int:
    print(f"python -m app tool: {message}", file=sys.stderr)
    return USAGE_ERROR
