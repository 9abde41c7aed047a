"""A small legitimate project for the per-tool tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.harness.calls import CallOutcome, ToolExecutor
from app.settings import Settings
from app.workspace import Workspace

Call = Callable[..., CallOutcome]


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


@pytest.fixture
def make_executor(tmp_path: Path) -> Iterator[Callable[..., ToolExecutor]]:
    """make_executor(files, **settings) -> a real ToolExecutor over a real folder `proj` holding files."""
    opened: list[Workspace] = []

    def factory(files: dict[str, str | bytes], **overrides: object) -> ToolExecutor:
        settings = Settings(**overrides)
        ws = Workspace(write(tmp_path / "proj", files), settings)
        opened.append(ws)
        return ToolExecutor(ws, settings)

    yield factory
    for ws in opened:
        ws.close()


@pytest.fixture
def make_call(make_executor) -> Callable[..., Call]:
    """make_call(files, **settings) -> call(name, **arguments) running through the real executor."""

    def factory(files: dict[str, str | bytes], **overrides: object) -> Call:
        ex = make_executor(files, **overrides)
        return lambda name, **args: ex.run("c1", name, json.dumps(args))

    return factory
