"""Run a tool call with a hang detector: a worker thread joined with a timeout, never a sleep."""

from __future__ import annotations

import json
import threading

from app.harness.calls import CallOutcome, ToolExecutor

HANG_SECONDS = 15.0


def run_bounded(ex: ToolExecutor, name: str, args: dict | str, seconds: float = HANG_SECONDS) -> CallOutcome:
    raw = args if isinstance(args, str) else json.dumps(args)
    box: list[CallOutcome] = []
    worker = threading.Thread(target=lambda: box.append(ex.run("t", name, raw)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"HANG: {name}({raw}) did not return within {seconds} s"
    return box[0]
