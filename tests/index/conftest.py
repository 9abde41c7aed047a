"""Real folders and a real index in the test's private BURROW_HOME."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.index import CodeIndex
from app.settings import Settings
from app.workspace import Workspace


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


@pytest.fixture
def make_index(tmp_path: Path) -> Iterator[Callable[..., CodeIndex]]:
    """make_index(files_or_folder, **settings) -> an opened, unbuilt index over a real folder."""
    opened: list[tuple[Workspace, CodeIndex]] = []

    def factory(files: dict[str, str | bytes] | Path, **overrides: object) -> CodeIndex:
        settings = Settings(**overrides)
        root = files if isinstance(files, Path) else write(tmp_path / "proj", files)
        ws = Workspace(root, settings)
        index = CodeIndex.open(ws, settings)
        opened.append((ws, index))
        return index

    yield factory
    for ws, index in opened:
        index.close()
        ws.close()


def paths(hits) -> list[str]:
    return [h.path for h in hits]
