"""An arena for attacks: a workspace `ws`, a sibling `ws_evil` and an `outside` folder holding a marker.

Every attack entry in `ws` is named with a .py suffix so that file_outline, which refuses unknown
languages before touching disk, really has to open it too.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.harness.calls import ToolExecutor
from app.settings import Settings
from app.workspace import Workspace

STRATEGIES = ("openat2", "fallback")


@dataclass(frozen=True)
class Arena:
    root: Path
    ws: Path
    outside: Path
    marker: str

    def leaked(self, text: str, given: str = "") -> bool:
        """Outside content, or a host path the model did not send itself, shows in what it would see."""
        return self.marker in text or (str(self.root) in text and str(self.root) not in given)


def _build(tmp: Path) -> Arena:
    marker = f"BURROW-LEAK-MARKER-{uuid.uuid4().hex}"
    ws, outside, evil = tmp / "ws", tmp / "outside", tmp / "ws_evil"
    for d in (ws / "src" / "pkg", outside / "sub", evil):
        d.mkdir(parents=True)
    for d in (outside, outside / "sub", evil):
        (d / "secret.txt").write_text(f"{marker}\n")
        (d / "secret.py").write_text(f"def leak():\n    return '{marker}'\n")
    (outside / "hard_src.py").write_text(f"x = '{marker}'\n")
    (ws / "src" / "pkg" / "real.py").write_text("def real():\n    return 'inside'\n")
    (ws / "README.md").write_text("# Project\nhello inside\n")
    links = {
        "abs_link.py": str(outside / "secret.py"),
        "rel_link.py": "../outside/secret.py",
        "chain1.py": "chain2.py",
        "chain2.py": "chain3.py",
        "chain3.py": "../outside/secret.py",
        "loop_a.py": "loop_b.py",
        "loop_b.py": "loop_a.py",
        "self_loop.py": "self_loop.py",
        "dangling.py": "does/not/exist.py",
        "proc_root.py": f"/proc/self/root{outside}/secret.py",
        "proc_cwd.py": "/proc/self/cwd/secret.py",
        "procroot": "/proc/self/root",
        "reenter.py": "../ws/src/pkg/real.py",
        "sibling.py": "../ws_evil/secret.py",
        "outdir": "../outside",
        "outdir_abs": str(outside),
        "devzero.py": "/dev/zero",
        "src/pkg/up.py": "../../../outside/secret.py",
    }
    for name, target in links.items():
        os.symlink(target, ws / name)
    os.link(outside / "hard_src.py", ws / "hard.py")
    os.mkfifo(ws / "fifo.py")
    with open(ws / "sparse.py", "wb") as fh:
        fh.truncate(10 * 1024**3)
    (ws / "oneline.py").write_text("x = '" + "a" * (1024 * 1024) + "'\n")
    for bad in ("ctl\nname.py", "esc\x1b[31m.py", "tab\there.py"):
        (ws / bad).write_text(f"{marker}\n")  # unreachable by rule, so even the marker must not show
    return Arena(tmp, ws, outside, marker)


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Arena:
    return _build(tmp_path_factory.mktemp("arena"))


@pytest.fixture
def settings() -> Settings:
    return Settings(search_timeout_s=5.0)


def make_executor(path: Path, settings: Settings, strategy: str) -> tuple[Workspace, ToolExecutor]:
    ws = Workspace(path, settings, force_fallback=strategy == "fallback")
    return ws, ToolExecutor(ws, settings)


@pytest.fixture(params=STRATEGIES)
def executor(request: pytest.FixtureRequest, arena: Arena, settings: Settings) -> Iterator[ToolExecutor]:
    ws, ex = make_executor(arena.ws, settings, request.param)
    expected = "openat2" if request.param == "openat2" else "O_NOFOLLOW walk"
    if ws.strategy != expected:
        ws.close()
        pytest.skip(f"this kernel does not offer {request.param}")
    yield ex
    ws.close()
