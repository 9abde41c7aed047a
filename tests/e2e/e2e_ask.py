"""Run `python -m app ask` as a user would (a helper for the e2e tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class AskResult:
    code: int
    stdout: str
    stderr: str
    trace: list[dict]

    @property
    def report(self) -> dict:
        return json.loads(self.stdout)


def ask(project: Path, question: str, *extra: str, trace: Path | None = None, timeout: int = 300) -> AskResult:
    """Run `python -m app ask` as a user would, in a fresh process."""
    command = [sys.executable, "-m", "app", "ask", "--workspace", str(project), *extra]
    if trace is not None:
        command += ["--trace", str(trace)]
    done = subprocess.run([*command, question], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    lines = trace.read_text(encoding="utf-8").splitlines() if trace is not None and trace.exists() else []
    return AskResult(done.returncode, done.stdout, done.stderr, [json.loads(line) for line in lines])
